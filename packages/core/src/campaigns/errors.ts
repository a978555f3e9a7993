import * as Schema from "effect/Schema"

/** No campaign under that id (404). */
export class CampaignNotFound extends Schema.TaggedError<CampaignNotFound>()("CampaignNotFound", {
  campaignId: Schema.String
}) {
  override get message() {
    return `no campaign ${this.campaignId}`
  }
}

/**
 * The operation makes no sense for the campaign in its current state (pausing a draft or a
 * completed campaign, resuming one that is not paused, starting one that already started):
 * nothing changed (409). `state` is the state as `status` shows it (`completed` included).
 */
export class CampaignStateError extends Schema.TaggedError<CampaignStateError>()("CampaignStateError", {
  campaignId: Schema.String,
  state: Schema.String,
  operation: Schema.String,
  /** Why, and what to do instead. */
  reason: Schema.String
}) {
  override get message() {
    return `campaign ${this.campaignId} is ${this.state}: cannot ${this.operation} it (${this.reason})`
  }
}

/**
 * A campaign id already names a campaign (409). A draft may be replaced by asking for it
 * (`replace`); a campaign that ever started never can (its recipients have been sent to).
 */
export class CampaignExists extends Schema.TaggedError<CampaignExists>()("CampaignExists", {
  campaignId: Schema.String,
  state: Schema.String
}) {
  override get message() {
    return this.state === "draft"
      ? `campaign ${this.campaignId} already exists (a draft): to change its template or recipients, replace it (hookgate campaigns create --replace, or POST /admin/campaigns?replace=true)`
      : `campaign ${this.campaignId} already exists and is ${this.state}: only a draft (never started) can be replaced`
  }
}

/** The recipient stream held something that is not a recipient. */
export class InvalidRecipient extends Schema.TaggedError<InvalidRecipient>()("InvalidRecipient", {
  campaignId: Schema.String,
  position: Schema.Int,
  detail: Schema.String
}) {
  override get message() {
    return `campaign ${this.campaignId}: recipient #${this.position} is invalid: ${this.detail}`
  }
}

/** The campaign id or template is not valid. */
export class InvalidCampaign extends Schema.TaggedError<InvalidCampaign>()("InvalidCampaign", {
  campaignId: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `campaign ${this.campaignId} is invalid: ${this.detail}`
  }
}

/**
 * A recipient whose own data (email and vars, as JSON) exceeds `maxRecipientBytes`: it
 * could never be stored (D1 refuses a string or row over 2,000,000 bytes), so creation
 * stops with a 400 naming it rather than failing retryably forever.
 */
export class RecipientTooLarge extends Schema.TaggedError<RecipientTooLarge>()("RecipientTooLarge", {
  campaignId: Schema.String,
  position: Schema.Int,
  email: Schema.String,
  bytes: Schema.Int,
  limit: Schema.Int
}) {
  override get message() {
    return `campaign ${this.campaignId}: recipient #${this.position} (${this.email}) is ${this.bytes} bytes, over the limit of ${this.limit}`
  }
}
