import * as Data from "effect/Data"
import { fieldsMessage } from "../internal/fields-message.js"

/** The alerter could not tell the owner; recorded on the stored alert. */
export class AlertFailed extends Data.TaggedError("AlertFailed")<{
  readonly detail: string
  /** The delivery was handed to the background (Workers' `waitUntil`), which records its real outcome. */
  readonly deferred: boolean
}> {
  constructor(args: { readonly detail: string; readonly deferred?: boolean }) {
    super({ detail: args.detail, deferred: args.deferred ?? false })
  }

  override get message() {
    return fieldsMessage(this, ["detail", "deferred"])
  }
}
