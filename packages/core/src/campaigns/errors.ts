import * as Schema from "effect/Schema"

/** No campaign under that id (404). */
export class CampaignNotFound extends Schema.TaggedError<CampaignNotFound>()("CampaignNotFound", {
  campaignId: Schema.String
}) {
  override get message() {
    return `no campaign ${this.campaignId}`
  }
}

/** The operation does not apply to the campaign in its current state (e.g. pausing a draft). */
export class CampaignStateError extends Schema.TaggedError<CampaignStateError>()("CampaignStateError", {
  campaignId: Schema.String,
  state: Schema.String,
  operation: Schema.String
}) {
  override get message() {
    return `campaign ${this.campaignId} is ${this.state}: cannot ${this.operation}`
  }
}

/** A campaign id already names a campaign with another template, or one past its draft. */
export class CampaignExists extends Schema.TaggedError<CampaignExists>()("CampaignExists", {
  campaignId: Schema.String,
  state: Schema.String
}) {
  override get message() {
    return `campaign ${this.campaignId} already exists (${this.state})`
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
