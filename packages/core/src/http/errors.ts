import { Schema } from "effect"

export class BodyTooLarge extends Schema.TaggedError<BodyTooLarge>()("BodyTooLarge", {
  limitBytes: Schema.Number
}) {
  override get message() {
    return `request body exceeds ${this.limitBytes} bytes`
  }
}
