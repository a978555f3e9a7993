import { describe, expect, it } from "@effect/vitest"
import { receive } from "@hookgate/core"
import { MemoryStore, paidEvent, signTestRequest, TEST_SECRET, TestPipeline, TestProvider } from "@hookgate/testing"
import { Effect, Layer, Tracer } from "effect"

// What a tracer sees of a webhook: one span for it, the mailer call as a child span,
// the steps as events; and under Effect's built-in tracer nothing is made at all.

const recordingTracer = () => {
  const spans: Array<{ name: string; parent: string | undefined; events: Array<string>; attributes: ReadonlyMap<string, unknown> }> = []
  const layer = Layer.unwrapEffect(Effect.map(Effect.tracer, (base) =>
    Layer.setTracer(Tracer.make({
      span: (name, parent, ...rest) => {
        const span = base.span(name, parent, ...rest)
        const seen = { name, parent: parent._tag === "Some" && parent.value._tag === "Span" ? parent.value.name : undefined, events: [] as Array<string>, attributes: span.attributes }
        spans.push(seen)
        const event = span.event.bind(span)
        span.event = (eventName, time, attributes) => {
          seen.events.push(eventName)
          event(eventName, time, attributes)
        }
        return span
      },
      context: base.context
    }))))
  return { spans, layer }
}

const pipeline = TestPipeline.layer({ store: MemoryStore.layer, providers: [TestProvider.make({ secret: TEST_SECRET })] })
const webhook = signTestRequest(TEST_SECRET, paidEvent("evt_s1", { orderId: "s1", email: "s1@example.com", amount: 100, currency: "usd" }))

describe("spans", () => {
  it.effect("with a tracer: hookgate.receive per webhook, hookgate.send under it, the steps as its events", () =>
    Effect.gen(function*() {
      const { layer, spans } = recordingTracer()
      const outcome = yield* Effect.flatMap(webhook, (request) => receive("test", request)).pipe(Effect.provide(Layer.merge(pipeline, layer)))
      expect(outcome._tag).toBe("Sent")
      const ours = spans.filter((span) => span.name.startsWith("hookgate."))
      expect(ours.map((span) => span.name)).toEqual(["hookgate.receive", "hookgate.send"])
      const [webhookSpan, send] = ours
      expect(send!.parent).toBe("hookgate.receive")
      expect(webhookSpan!.events).toEqual(["hookgate.verify", "hookgate.decode", "hookgate.store", "hookgate.record_sent"])
      expect(webhookSpan!.attributes.get("provider")).toBe("test")
      expect(webhookSpan!.attributes.get("outcome")).toBe("Sent")
    }))

  it.effect("with tracing disabled: none of them", () =>
    Effect.gen(function*() {
      const { layer, spans } = recordingTracer()
      yield* Effect.flatMap(webhook, (request) => receive("test", request)).pipe(
        Effect.provide(Layer.mergeAll(pipeline, layer, Layer.setTracerEnabled(false)))
      )
      expect(spans.filter((span) => span.name.startsWith("hookgate."))).toEqual([])
    }))
})
