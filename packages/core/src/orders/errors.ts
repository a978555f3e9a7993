import * as Data from "effect/Data"

/** The order kernel's failures (statuses in http/contract.ts). */

/** The same order key arrived with a different payload (409 `conflict`). */
export class OrderConflict extends Data.TaggedError("OrderConflict")<{
  readonly orderKey: string
  readonly existingStatus: string
  readonly existingHash: string
  readonly incomingHash: string
}> {
  override get message() {
    return `order ${this.orderKey} already exists with a different payload`
  }
}

/** No order under that key. */
export class OrderNotFound extends Data.TaggedError("OrderNotFound")<{
  readonly orderKey: string
}> {
  override get message() {
    return `no order under the key ${this.orderKey}`
  }
}

/** The merchant's renderer threw or failed for an order. */
export class RenderError extends Data.TaggedError("RenderError")<{
  readonly orderKey: string
  readonly detail: string
}> {
  override get message() {
    return `the renderer failed for order ${this.orderKey}: ${this.detail}`
  }
}
