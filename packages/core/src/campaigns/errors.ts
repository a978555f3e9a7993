import * as Data from "effect/Data"

/** No campaign under that id (404). */
export class CampaignNotFound extends Data.TaggedError("CampaignNotFound")<{
  readonly campaignId: string
}> {
  override get message() {
    return `no campaign ${this.campaignId}`
  }
}

/**
 * The operation makes no sense for the campaign in its current state (pausing a draft or a
 * completed campaign, resuming one that is not paused, starting one that already started):
 * nothing changed (409). `state` is the state as `status` shows it (`completed` included).
 */
export class CampaignStateError extends Data.TaggedError("CampaignStateError")<{
  readonly campaignId: string
  readonly state: string
  readonly operation: string
  /** Why, and what to do instead. */
  readonly reason: string
}> {
  override get message() {
    return `campaign ${this.campaignId} is ${this.state}: cannot ${this.operation} it (${this.reason})`
  }
}

/**
 * A campaign id already names a campaign (409). A draft may be replaced by asking for it
 * (`replace`); a campaign that ever started never can (its recipients have been sent to).
 * `superseded`: this create made or replaced the draft, but another create replaced it
 * while this one was writing its recipients; none of this one's are kept.
 */
export class CampaignExists extends Data.TaggedError("CampaignExists")<{
  readonly campaignId: string
  readonly state: string
  readonly superseded?: boolean | undefined
}> {
  override get message() {
    if (this.superseded === true) {
      return `campaign ${this.campaignId} was replaced by another create while this one was writing its recipients: the other's list is kept, none of this one's`
    }
    return this.state === "draft"
      ? `campaign ${this.campaignId} already exists (a draft): to change its template or recipients, replace it (hookgate campaigns create --replace, or POST /admin/campaigns?replace=true)`
      : `campaign ${this.campaignId} already exists and is ${this.state}: only a draft (never started) can be replaced`
  }
}

/** Where a recipient was in its source: "line 3" when it came with its line, else "recipient #2" (0-based). */
const where = (error: { readonly position: number; readonly line?: number | undefined }) =>
  error.line === undefined ? `recipient #${error.position}` : `line ${error.line}`

/**
 * The recipient stream held something that is not a recipient. `position` counts recipients
 * from 0; `line` is its line in the file or body it was read from (1-based, a header line
 * included), when the reader gave it (`RecipientOnLine`).
 */
export class InvalidRecipient extends Data.TaggedError("InvalidRecipient")<{
  readonly campaignId: string
  readonly position: number
  readonly line?: number | undefined
  readonly detail: string
}> {
  override get message() {
    return this.line === undefined
      ? `campaign ${this.campaignId}: recipient #${this.position} is invalid: ${this.detail}`
      : `campaign ${this.campaignId}: line ${this.line}: ${this.detail}`
  }
}

/** The campaign id or template is not valid. */
export class InvalidCampaign extends Data.TaggedError("InvalidCampaign")<{
  readonly campaignId: string
  readonly detail: string
}> {
  override get message() {
    return `campaign ${this.campaignId} is invalid: ${this.detail}`
  }
}

/**
 * A recipient whose own data (email and vars, as JSON) exceeds `maxRecipientBytes`: it
 * could never be stored (D1 refuses a string or row over 2,000,000 bytes), so creation
 * stops with a 400 naming it rather than failing retryably forever.
 */
export class RecipientTooLarge extends Data.TaggedError("RecipientTooLarge")<{
  readonly campaignId: string
  readonly position: number
  readonly line?: number | undefined
  readonly email: string
  readonly bytes: number
  readonly limit: number
}> {
  override get message() {
    return `campaign ${this.campaignId}: ${where(this)} (${this.email}) is ${this.bytes} bytes, over the limit of ${this.limit}`
  }
}
