import * as Data from "effect/Data"

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
    return this.deferred ? `the alert's delivery was deferred: ${this.detail}` : `the alert could not be delivered: ${this.detail}`
  }
}
