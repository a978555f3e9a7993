import * as Schema from "effect/Schema"

/** A request body over the limit (413 `too_large`). */
export class BodyTooLarge extends Schema.TaggedError<BodyTooLarge>()("BodyTooLarge", {
  limitBytes: Schema.Number
}) {
  override get message() {
    return `request body exceeds ${this.limitBytes} bytes`
  }
}
