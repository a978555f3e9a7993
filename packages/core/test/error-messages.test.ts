import { describe, expect, it } from "@effect/vitest"
import { AlertFailed } from "../src/alerts/errors.js"
import { OrderNotFound, RenderError } from "../src/orders/errors.js"

describe("errors say what went wrong in a sentence", () => {
  it("name the order, the detail, and whether an alert was deferred", () => {
    expect(new OrderNotFound({ orderKey: "stripe:cs_1" }).message).toBe("no order under the key stripe:cs_1")
    expect(new RenderError({ orderKey: "stripe:cs_1", detail: "no template" }).message).toBe(
      "the renderer failed for order stripe:cs_1: no template"
    )
    expect(new AlertFailed({ detail: "down" }).message).toBe("the alert could not be delivered: down")
    expect(new AlertFailed({ detail: "later", deferred: true }).message).toBe("the alert's delivery was deferred: later")
  })

  it("AlertFailed is not deferred unless said, and keeps its fields when serialised", () => {
    expect(new AlertFailed({ detail: "down" }).deferred).toBe(false)
    expect(JSON.parse(JSON.stringify(new AlertFailed({ detail: "down" })))).toMatchObject({ _tag: "AlertFailed", detail: "down", deferred: false })
  })
})
