import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { AlertFailed } from "../src/alerts/errors.js"
import { OrderNotFound, RenderError } from "../src/orders/errors.js"

// The errors without a message of their own are Data.TaggedError (cheaper to define at module
// scope than Schema.TaggedError); their message and fields stay what Schema.TaggedError gave.
class SchemaRenderError extends Schema.TaggedError<SchemaRenderError>()("RenderError", {
  orderKey: Schema.String,
  detail: Schema.String
}) {}
class SchemaAlertFailed extends Schema.TaggedError<SchemaAlertFailed>()("AlertFailed", {
  detail: Schema.String,
  deferred: Schema.optionalWith(Schema.Boolean, { default: () => false })
}) {}

describe("errors without a message of their own", () => {
  it("say their fields as Schema.TaggedError did", () => {
    const render = { orderKey: "stripe:\"o1\"", detail: "line\nbreak" }
    expect(new RenderError(render).message).toBe(new SchemaRenderError(render).message)
    expect(new OrderNotFound({ orderKey: "o1" }).message).toBe("{ \"orderKey\": \"o1\" }")
    expect(new AlertFailed({ detail: "down" }).message).toBe(new SchemaAlertFailed({ detail: "down" }).message)
    expect(new AlertFailed({ detail: "later", deferred: true }).message).toBe(
      new SchemaAlertFailed({ detail: "later", deferred: true }).message
    )
  })

  it("AlertFailed is not deferred unless said, and serializes as before", () => {
    expect(new AlertFailed({ detail: "down" }).deferred).toBe(false)
    expect(JSON.parse(JSON.stringify(new AlertFailed({ detail: "down" })))).toEqual(
      JSON.parse(JSON.stringify(new SchemaAlertFailed({ detail: "down" })))
    )
  })
})
