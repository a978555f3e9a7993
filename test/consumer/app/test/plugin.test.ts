// The Acme plugin exactly as docs/plugins.md writes it, through the pipeline on
// a real store (SQLite), with the app's template and a scripted mailer.
import { receive, RetryPolicy, WebhookRequest } from "@hookgate/core"
import { RecordingAlerter, ScriptedMailer } from "@hookgate/core/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, expect, it } from "vitest"
import { AcmeProvider, signAcmeRequest } from "../snippets/docs-plugins.js"
import { Template } from "../snippets/readme.js"

const SECRET = "whsec_consumer_app_acme"
process.env.ACME_WEBHOOK_SECRET = `${SECRET}, whsec_acme_previous`

const runtime = ManagedRuntime.make(Layer.mergeAll(
  SqliteStore.layer({ filename: ":memory:" }),
  AcmeProvider,
  ScriptedMailer.layer({ honoursIdempotencyKeys: false }),
  RecordingAlerter.layer(),
  Template,
  RetryPolicy.layer({ inRequestBase: 0 })
))
afterAll(() => runtime.dispose())

const now = () => Math.floor(Date.now() / 1000)
const paid = (orderId: string) =>
  JSON.stringify({
    type: "order.paid",
    data: { order_id: orderId, email: "buyer@example.com", product: "Licence", amount: 1900, currency: "eur", unused: true }
  })
const answer = (request: WebhookRequest) =>
  runtime.runPromise(
    receive("acme", request).pipe(
      Effect.map((outcome) => outcome._tag as string),
      Effect.catchTag("SignatureError", (error) => Effect.succeed(`SignatureError: ${error.reason}`)),
      Effect.catchTag("MalformedPayload", (error) => Effect.succeed(`MalformedPayload: ${error.detail}`))
    )
  )
const sign = (body: string, id: string, timestamp = now(), secret = SECRET) =>
  Effect.runPromise(signAcmeRequest(secret, body, id, timestamp))

it("sends once per order: sent, then duplicate for a retry, one email", async () => {
  const request = await sign(paid("A-1"), "evt_a1")
  expect(await answer(request)).toBe("Sent")
  expect(await answer(request)).toBe("Duplicate")
  const delivered = await runtime.runPromise(Effect.flatMap(ScriptedMailer, (mailer) => mailer.delivered))
  expect(delivered.map((d) => [d.email.to, d.email.subject])).toEqual([["buyer@example.com", "Your licence key"]])
})

it("verifies under a previous secret while it is rolled", async () => {
  expect(await answer(await sign(paid("A-2"), "evt_a2", now(), "whsec_acme_previous"))).toBe("Sent")
})

it("refuses what the page says it refuses", async () => {
  const good = await sign(paid("A-3"), "evt_a3")
  const tampered = WebhookRequest.fromParts(new TextEncoder().encode(paid("A-3").replace("1900", "1")), good.headers)
  expect(await answer(tampered)).toBe("SignatureError: no_matching_signature")
  expect(await answer(await sign(paid("A-3"), "evt_a3", now() - 3600))).toBe("SignatureError: timestamp_too_old")
  expect(await answer(await sign(paid("A-3"), "evt_a3", now() + 3600))).toBe("SignatureError: timestamp_in_future")
  expect(await answer(await sign(paid("A-3"), "evt_a3", now(), "whsec_someone_else"))).toBe("SignatureError: no_matching_signature")
  expect(await answer(await sign("not json", "evt_a3"))).toBe("MalformedPayload: body is not UTF-8 JSON")
  expect(await answer(await sign(JSON.stringify({ type: "order.paid", data: {} }), "evt_a3"))).toMatch(/^MalformedPayload: order.paid/)
  expect(await answer(await sign(JSON.stringify({ type: "order.refunded" }), "evt_r1"))).toBe("Ignored")
})
