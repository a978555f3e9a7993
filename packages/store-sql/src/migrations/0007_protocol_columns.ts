/**
 * The columns the lease protocol reports through (docs/architecture.md, "The lease
 * protocol, model-checked"):
 * - `hookgate_orders.uncertain_attempts`: attempts that may have reached the buyer
 *   without a recorded outcome (ended `Unknown`, or an unreleased lease taken over);
 *   the capped alert names them. Orders from before start at 0 (their count is unknown).
 * - `hookgate_campaign_recipients.released_token`: the token whose record wrote the row,
 *   so the batch's alert is stored in the same atomic step only if that record applied.
 */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE hookgate_orders ADD COLUMN uncertain_attempts INTEGER NOT NULL DEFAULT 0`,
  `ALTER TABLE hookgate_campaign_recipients ADD COLUMN released_token TEXT`
]
