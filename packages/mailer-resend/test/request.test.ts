import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { constTrue } from "effect/Function"
import { make } from "../src/Resend.js"
import { toResendEmail } from "../src/internal/wire.js"
import { email } from "./support.js"

const OPTIONS = { apiKey: Redacted.make("re_secret_key"), baseUrl: "https://api.example.test/", userAgent: "shop/2.0" }
const KEY = "hookgate/order/test:o1"

/** A client that answers every request with `body` and keeps what it was sent. */
const recording = (body: string) => {
  const sent: Array<HttpClientRequest.HttpClientRequest> = []
  const client = HttpClient.make((request) => {
    sent.push(request)
    return Effect.succeed(HttpClientResponse.fromWeb(request, new Response(body, { status: 200 })))
  })
  return { client, sent }
}

/** The request as @effect/platform's combinators build it, one by one: what the mailer must send. */
const general = (path: string, body: unknown) =>
  HttpClientRequest.post(path).pipe(
    HttpClientRequest.setHeader("idempotency-key", KEY),
    HttpClientRequest.bodyUnsafeJson(body),
    HttpClientRequest.prependUrl("https://api.example.test"),
    HttpClientRequest.bearerToken(OPTIONS.apiKey),
    HttpClientRequest.setHeader("user-agent", OPTIONS.userAgent),
    HttpClientRequest.acceptJson
  )

const wire = (request: HttpClientRequest.HttpClientRequest) => ({
  method: request.method,
  url: request.url,
  headers: request.headers,
  body: request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : request.body._tag
})

describe("the request the Resend mailer sends (built at once, headers made once)", () => {
  it.effect("is the request the general combinators build, for a send and a batch", () =>
    Effect.gen(function*() {
      const single = recording(JSON.stringify({ id: "em_1" }))
      const mailer = yield* make(OPTIONS).pipe(Effect.provideService(HttpClient.HttpClient, single.client))
      const outgoing = email({ html: "<p>Thanks</p>", headers: { "X-Order": "o1" } })
      yield* mailer.send(outgoing, { idempotencyKey: KEY })
      expect(wire(single.sent[0]!)).toEqual(wire(general("/emails", toResendEmail(outgoing))))

      const batch = recording(JSON.stringify({ data: [{ id: "em_1" }, { id: "em_2" }] }))
      const batchMailer = yield* make(OPTIONS).pipe(Effect.provideService(HttpClient.HttpClient, batch.client))
      const emails = [email(), email({ to: "other@example.com" })]
      yield* batchMailer.sendBatch!(emails, { idempotencyKey: KEY })
      expect(wire(batch.sent[0]!)).toEqual(wire(general("/emails/batch", emails.map(toResendEmail))))
    }))

  it.effect("carries no trace context under Effect's built-in tracer, with @effect/platform's client spans on or off", () =>
    Effect.gen(function*() {
      const { client, sent } = recording(JSON.stringify({ id: "em_1" }))
      const mailer = yield* make(OPTIONS).pipe(Effect.provideService(HttpClient.HttpClient, client))
      yield* mailer.send(email(), { idempotencyKey: KEY })
      yield* mailer.send(email(), { idempotencyKey: KEY }).pipe(Effect.locally(HttpClient.currentTracerDisabledWhen, constTrue))
      expect(sent).toHaveLength(2)
      for (const request of sent) {
        expect(Object.keys(request.headers).filter((name) => name === "traceparent" || name === "b3")).toEqual([])
      }
    }))
})
