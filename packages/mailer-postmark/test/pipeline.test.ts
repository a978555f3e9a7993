import { FetchHttpClient } from "@effect/platform"
import { OrderStore, receive, RetryPolicy, sweep } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { MailerCircuit } from "@hookgate/core/mail"
import { Providers } from "@hookgate/core/providers"
import { MemoryStore, paidEvent, RecordingAlerter, signTestRequest, TestProvider, TestRenderer } from "@hookgate/testing"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Layer, Redacted } from "effect"
import { layer as postmarkLayer, type PostmarkOptions } from "../src/Postmark.js"
import { type PostmarkTestServerShape, startPostmarkTestServer } from "../src/testing/index.js"

const SECRET = Redacted.make("whsec_postmark_pipeline")

let server: PostmarkTestServerShape
beforeAll(async () => {
  server = await startPostmarkTestServer({ inactiveRecipients: ["bounced@example.com"] })
})
afterAll(() => server.close())
beforeEach(() => server.reset())

/** The pipeline on the in-memory store, sending through the Postmark stand-in over real HTTP. */
const environment = (overrides: Partial<PostmarkOptions> = {}) =>
  Layer.mergeAll(
    MemoryStore.layer,
    postmarkLayer({ ...server.mailerOptions, ...overrides }).pipe(Layer.provide(FetchHttpClient.layer)),
    RecordingAlerter.layer(),
    Providers.layer(TestProvider.make({ secret: SECRET })),
    TestRenderer.layer,
    RetryPolicy.layer({ inRequestBase: 0, backoffBase: "50 millis" }),
    MailerCircuit.layer()
  )

const webhook = (orderId: string) =>
  Effect.flatMap(
    signTestRequest(
      SECRET,
      paidEvent(`evt_${orderId}`, { orderId, email: `${orderId}@example.com`, product: "course-101", amount: 1900, currency: "usd" })
    ),
    (request) => receive("test", request)
  )

const order = (id: string) =>
  Effect.flatMap(OrderStore, (store) => Effect.flatMap(store.get(`test:${id}`), (o) => Effect.orDie(o)))

const alerts = Effect.flatMap(AlertStore, (s) => s.list({ limit: 20 }))

describe("the pipeline through the Postmark stand-in", () => {
  it.live("sent once with Postmark's MessageID; a replayed webhook sends nothing", () =>
    Effect.gen(function*() {
      expect((yield* webhook("o1"))._tag).toBe("Sent")
      expect(server.emails.map((e) => e.to)).toEqual(["o1@example.com"])
      expect(yield* order("o1")).toMatchObject({ status: "sent", messageId: server.emails[0]!.id })
      expect((yield* webhook("o1"))._tag).toBe("Duplicate")
      expect(server.emails).toHaveLength(1)
    }).pipe(Effect.provide(environment())))

  it.live("a 429 is retried in the request and the email goes out once", () =>
    Effect.gen(function*() {
      server.failNext(1, { status: 429, errorCode: 429, message: "Rate limit exceeded." })
      expect((yield* webhook("o2"))._tag).toBe("Sent")
      expect(server.requests.map((r) => r.status)).toEqual([429, 200])
      expect(server.emails).toHaveLength(1)
    }).pipe(Effect.provide(environment())))

  it.live("accepted but the answer lost: recorded uncertain; the sweep sends again and flags the possible duplicate", () =>
    Effect.gen(function*() {
      server.acceptThenDrop()
      expect((yield* webhook("o3"))._tag).toBe("Retry")
      const uncertain = yield* order("o3")
      expect(uncertain).toMatchObject({ status: "pending", uncertain: true })
      const now = yield* Clock.currentTimeMillis
      yield* Effect.sleep(Duration.millis(Math.max(0, uncertain.nextAttemptAt - now) + 5))
      expect(yield* sweep()).toMatchObject({ scanned: 1, sent: 1 })
      // No idempotency key at Postmark: the buyer may have two emails, and the operator is told.
      expect(server.emails).toHaveLength(2)
      expect(yield* order("o3")).toMatchObject({ status: "sent", possibleDuplicates: 1, messageId: server.emails[1]!.id })
      expect((yield* alerts).map((a) => a.kind)).toContain("possible_duplicate")
    }).pipe(Effect.provide(environment())))

  it.live("an inactive recipient (406) fails the order once and tells the operator", () =>
    Effect.gen(function*() {
      const request = yield* signTestRequest(
        SECRET,
        paidEvent("evt_o4", { orderId: "o4", email: "bounced@example.com", product: "course-101", amount: 1900, currency: "usd" })
      )
      expect((yield* receive("test", request))._tag).toBe("Failed")
      const failed = yield* order("o4")
      expect(failed).toMatchObject({ status: "failed", attempts: 1 })
      expect(failed.lastError).toContain("ErrorCode 406")
      expect((yield* alerts).map((a) => a.kind)).toEqual(["failed"])
    }).pipe(Effect.provide(environment())))

  it.live("a bad server token (ErrorCode 10) holds the order unattempted and alerts mailer_misconfigured", () =>
    Effect.gen(function*() {
      expect((yield* webhook("o5"))._tag).toBe("Held")
      expect(yield* order("o5")).toMatchObject({ status: "pending", attempts: 0 })
      const stored = yield* alerts
      expect(stored.map((a) => a.kind)).toEqual(["mailer_misconfigured"])
      expect(stored[0]!.message).toContain("postmark_10")
      expect(stored[0]!.message).not.toContain("revoked-token-0815")
      expect(server.emails).toEqual([])
    }).pipe(Effect.provide(environment({ serverToken: Redacted.make("revoked-token-0815") }))))
})
