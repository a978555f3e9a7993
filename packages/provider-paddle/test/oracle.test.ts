import { describeEachHmac } from "@hookgate/testing/conformance"
import { Hmac, type WebhookProvider } from "@hookgate/core/providers"
import { expect } from "@effect/vitest"
import { LogLevel, Paddle as PaddleSdk } from "@paddle/paddle-node-sdk"
import { Effect, Either, FastCheck, TestClock } from "effect"
import { createHmac } from "node:crypto"
import { paddleH1Signature, signPaddleRequest, transactionEvent } from "../src/testing/index.js"
import { customerFor, failureOf, makeProvider, OLD_SECRET, requestOf, SECRET } from "./support.js"

// The official `@paddle/paddle-node-sdk`'s webhooks.unmarshal is the oracle. It reads the
// real clock, so these tests run the plugin on the live Clock too.
const sdk = new PaddleSdk("pdl_sdbx_apikey_oracle_only", { logLevel: LogLevel.none })
const STRANGER = "pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms8_s0me0neElsesK3y"
const body = transactionEvent("evt_01h8bkrfe7w1vwf8xmytwn51eh", "transaction.completed", {
  id: "txn_01h8bkrfe7w1vwf8xmytwn51ej",
  customerId: customerFor("oracle@example.com")
})
const tampered = body.replace(`"grand_total":"2900"`, `"grand_total":"1"`)
const nowSeconds = () => Math.floor(Date.now() / 1000)

const sdkAccepts = (payload: string, header: string) =>
  Effect.promise(() => sdk.webhooks.unmarshal(payload, SECRET, header).then(() => true, () => false))

const hookgateAccepts = (provider: WebhookProvider, payload: string, header: string) =>
  Effect.map(Effect.either(provider.verify(requestOf(payload, { "paddle-signature": header }))), Either.isRight)

type Entry = "right" | "rolled" | "stranger" | "unknown-key"

const Variant = FastCheck.record({
  entries: FastCheck.array(FastCheck.constantFrom<Entry>("right", "rolled", "stranger", "unknown-key"), { minLength: 1, maxLength: 4 }),
  // Clear of the 5 s edge, where the SDK counts milliseconds and hookgate whole seconds; and not more
  // than 5 s ahead, where the SDK accepts anything (pinned below).
  offset: FastCheck.integer({ min: -40, max: 3 }).filter((s) => s < -8 || s > -3),
  timestampTampered: FastCheck.constantFrom(false, false, false, true),
  bodyTampered: FastCheck.constantFrom(false, false, false, true)
})
type Variant = typeof Variant extends FastCheck.Arbitrary<infer A> ? A : never

/** The header a variant describes: `ts`, then each entry signed over `ts:body`. */
const headerFor = (variant: Variant) =>
  Effect.gen(function*() {
    const timestamp = nowSeconds() + variant.offset
    const parts = yield* Effect.forEach(variant.entries, (entry) => {
      switch (entry) {
        case "right":
          return Effect.map(paddleH1Signature(SECRET, timestamp, body), (h1) => `h1=${h1}`)
        case "rolled":
          return Effect.map(paddleH1Signature(OLD_SECRET, timestamp, body), (h1) => `h1=${h1}`)
        case "stranger":
          return Effect.map(paddleH1Signature(STRANGER, timestamp, body), (h1) => `h1=${h1}`)
        case "unknown-key":
          return Effect.succeed(`h2=${"ab".repeat(32)}`)
      }
    })
    return { ts: `ts=${variant.timestampTampered ? timestamp + 1 : timestamp}`, parts }
  })

describeEachHmac("paddle: @paddle/paddle-node-sdk's webhooks.unmarshal as oracle", (it, hmac) => {
  it.effect("over generated signature variants, the plugin accepts exactly when unmarshal accepts one of the request's h1 signatures", () =>
    Effect.gen(function*() {
      const provider = yield* makeProvider([SECRET])
      const seen = { accepted: 0, refused: 0 }
      yield* Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(Variant, (variant) =>
            Effect.runPromise(
              Effect.gen(function*() {
                const { parts, ts } = yield* headerFor(variant)
                const payload = variant.bodyTampered ? tampered : body
                const ours = yield* hookgateAccepts(provider, payload, [ts, ...parts].join(";"))
                // The SDK reads one h1 (the last): ask it about each, with the other keys as sent.
                const others = parts.filter((part) => !part.startsWith("h1="))
                const perH1 = yield* Effect.forEach(parts.filter((part) => part.startsWith("h1=")), (h1) =>
                  sdkAccepts(payload, [ts, ...others, h1].join(";")))
                expect(ours).toBe(perH1.some((accepted) => accepted))
                // With one h1 the two read the same header.
                if (perH1.length === 1) expect(ours).toBe(yield* sdkAccepts(payload, [ts, ...parts].join(";")))
                seen[ours ? "accepted" : "refused"]++
              }).pipe(Effect.provideService(Hmac, hmac))
            )),
          { numRuns: 300, seed: 20261202 }
        )
      )
      expect(seen.accepted).toBeGreaterThan(10)
      expect(seen.refused).toBeGreaterThan(10)
    }), 60_000)

  it.effect("hookgate's signer matches node:crypto and unmarshal accepts what it signs, as a TransactionCompletedEvent", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const request = yield* signPaddleRequest(SECRET, body)
      const header = request.header("paddle-signature")!
      const [, ts] = /^ts=(\d+);/.exec(header)!
      expect(header).toBe(`ts=${ts};h1=${createHmac("sha256", SECRET).update(`${ts}:${body}`).digest("hex")}`)
      const event = yield* Effect.promise(() => sdk.webhooks.unmarshal(body, SECRET, header))
      expect(event).toMatchObject({ eventType: "transaction.completed", eventId: "evt_01h8bkrfe7w1vwf8xmytwn51eh" })
      const provider = yield* makeProvider([SECRET])
      expect(yield* provider.verify(request)).toMatchObject({ id: "evt_01h8bkrfe7w1vwf8xmytwn51eh", type: "transaction.completed" })
      expect(yield* sdkAccepts(body, header.replace(/h1=[0-9a-f]+/, `h1=${"0".repeat(64)}`))).toBe(false)
    }))

  it.effect("non-ASCII text and unusual whitespace verify as bytes; the same JSON re-serialised does not", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const unusual = body.replace(`"origin":"web"`, "\"origin\" :\t\"web\",\r\n \"note\": \"zoë 日本 🧾\u00a0\u2028\"")
      const request = yield* signPaddleRequest(SECRET, unusual)
      const header = request.header("paddle-signature")!
      expect(yield* sdkAccepts(unusual, header)).toBe(true)
      const provider = yield* makeProvider([SECRET])
      expect((yield* provider.verify(request)).type).toBe("transaction.completed")
      const reserialised = requestOf(JSON.stringify(JSON.parse(unusual)), { "paddle-signature": header })
      expect(yield* failureOf(provider.verify(reserialised))).toMatchObject({ reason: "no_matching_signature" })
    }))

  // The shapes the property leaves out, where the two differ; each pinned both ways.
  it.effect("where they differ: several h1 (the SDK reads only the last), the future, upper-case hex, and headers Paddle never sends", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const provider = yield* makeProvider([SECRET])
      const now = nowSeconds()
      const right = yield* paddleH1Signature(SECRET, now, body)
      const stranger = yield* paddleH1Signature(STRANGER, now, body)
      const ahead = yield* paddleH1Signature(SECRET, now + 60, body)
      const rows: ReadonlyArray<readonly [string, string, { ours: boolean; sdk: boolean }]> = [
        // A rotation's h1 for the secret held first and another after it: the SDK sees only the other.
        ["the right h1 before another", `ts=${now};h1=${right};h1=${stranger}`, { ours: true, sdk: false }],
        ["the right h1 after another", `ts=${now};h1=${stranger};h1=${right}`, { ours: true, sdk: true }],
        // hookgate's window is two-sided, like its other providers; the SDK checks only the old side.
        ["signed 60 s ahead of the clock", `ts=${now + 60};h1=${ahead}`, { ours: false, sdk: true }],
        // The SDK compares hex text; hookgate decodes it.
        ["an upper-case h1", `ts=${now};h1=${right.toUpperCase()}`, { ours: true, sdk: false }],
        // hookgate refuses a header it cannot read whole; the SDK keeps the last value of each key.
        ["two ts, the signed one last", `ts=${now - 999};ts=${now};h1=${right}`, { ours: false, sdk: true }],
        ["an h1 that is not hex before the right one", `ts=${now};h1=xyz;h1=${right}`, { ours: false, sdk: true }],
        ["a ts with trailing text", `ts=${now}s;h1=${right}`, { ours: false, sdk: true }]
      ]
      for (const [name, header, expected] of rows) {
        const verdicts = { ours: yield* hookgateAccepts(provider, body, header), sdk: yield* sdkAccepts(body, header) }
        expect([name, verdicts]).toEqual([name, expected])
      }
    }))
})
