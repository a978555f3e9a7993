/**
 * `hookgate_campaigns.draft_token`: which create (or replace) is writing a draft's
 * recipients. Each one sets a token of its own when it makes or replaces the draft, and
 * every write of its recipients, its seal and its discard applies only while the draft
 * still carries that token: of two creates replacing one draft at once, the one replaced
 * writes nothing more and is refused, so a list is never a mix of two. Null on every
 * campaign from before (none is being written while a release upgrades).
 */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE hookgate_campaigns ADD COLUMN draft_token TEXT`
]
