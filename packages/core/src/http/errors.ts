import * as Data from "effect/Data"

/** A request body over the limit (413 `too_large`). */
export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{
  readonly limitBytes: number
}> {
  override get message() {
    return `request body exceeds ${this.limitBytes} bytes`
  }
}
