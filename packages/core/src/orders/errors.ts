import { Schema } from "effect"

/** The order kernel's failures (statuses in http/contract.ts). */

export class OrderConflict extends Schema.TaggedError<OrderConflict>()("OrderConflict", {
  orderKey: Schema.String,
  existingStatus: Schema.String,
  existingHash: Schema.String,
  incomingHash: Schema.String
}) {
  override get message() {
    return `order ${this.orderKey} already exists with a different payload`
  }
}

export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", {
  operation: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {
  override get message() {
    return `order store unavailable during ${this.operation}`
  }
}

export class OrderNotFound extends Schema.TaggedError<OrderNotFound>()("OrderNotFound", {
  orderKey: Schema.String
}) {}

export class RenderError extends Schema.TaggedError<RenderError>()("RenderError", {
  orderKey: Schema.String,
  detail: Schema.String
}) {}
