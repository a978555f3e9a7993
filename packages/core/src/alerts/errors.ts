import * as Schema from "effect/Schema"

/** The alerter could not tell the owner; recorded on the stored alert. */
export class AlertFailed extends Schema.TaggedError<AlertFailed>()("AlertFailed", {
  detail: Schema.String,
  /** The delivery was handed to the background (Workers' `waitUntil`), which records its real outcome. */
  deferred: Schema.optionalWith(Schema.Boolean, { default: () => false })
}) {}
