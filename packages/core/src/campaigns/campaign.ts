import * as Data from "effect/Data"
import * as Schema from "effect/Schema"

/**
 * The email of a campaign, with `{{name}}` placeholders filled from each
 * recipient's `vars` (and `{{email}}`). Rendering is deterministic: every
 * retry of a batch sends the same bodies under the same idempotency key.
 */
export class CampaignTemplate extends Schema.Class<CampaignTemplate>("CampaignTemplate")({
  from: Schema.NonEmptyTrimmedString,
  subject: Schema.String,
  text: Schema.String,
  html: Schema.optional(Schema.String),
  replyTo: Schema.optional(Schema.String),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
}) {}

/** One recipient; the ledger keeps one row per (campaign, lower-cased email). */
export const Recipient = Schema.Struct({
  email: Schema.String,
  vars: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
})
export type Recipient = typeof Recipient.Type

/**
 * A recipient as read from line `line` (1-based) of a file or request body: a recipient
 * stream may carry these, and an error about one names its line ("line 3: …"). Readers
 * count every line, blank ones and a header included, so the number is the one an editor shows.
 */
export class RecipientOnLine extends Data.Class<{
  readonly line: number
  /** A `Recipient`, a bare email, or anything else (it is validated like any recipient). */
  readonly recipient: unknown
}> {}

/** A campaign id: it becomes part of idempotency keys and URLs. */
export const CampaignId = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/))

/**
 * `draft`: being created (recipients streaming in); `running`: batches are
 * leased and sent; `paused`: no batch is leased until resumed.
 */
export const CampaignState = Schema.Literal("draft", "running", "paused")
export type CampaignState = typeof CampaignState.Type

/** A campaign's ledger at a glance: `total = sent + failed + remaining + reserved`. */
export class CampaignStatus extends Schema.Class<CampaignStatus>("CampaignStatus")({
  id: Schema.String,
  /** `completed` when running with nothing left to send. */
  state: Schema.Literal("draft", "running", "paused", "completed"),
  total: Schema.Int,
  sent: Schema.Int,
  /** In a batch that is not sent yet (being sent, or waiting for its retry). */
  reserved: Schema.Int,
  failed: Schema.Int,
  /** Not in any batch yet. */
  remaining: Schema.Int,
  /** Recipients of redelivered batches that were answered without sending again. */
  duplicatesPrevented: Schema.Int
}) {}

/** The queue message that asks for one batch of a campaign: the same message for every retry. */
export class CampaignBatchMessage extends Schema.Class<CampaignBatchMessage>("CampaignBatchMessage")({
  type: Schema.Literal("hookgate/campaign-batch"),
  campaignId: Schema.String,
  batch: Schema.Int.pipe(Schema.positive())
}) {}

/** The queue message that asks for one delivery of a campaign's batch slot. */
export const campaignBatchMessage = (campaignId: string, batch: number) =>
  new CampaignBatchMessage({ type: "hookgate/campaign-batch", campaignId, batch }, true)
