import { describe, expect } from "@effect/vitest"
import type * as Arr from "effect/Array"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { OrderStore, receive } from "@hookgate/core"
import type { Lease } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { Hmac, type HmacKey, type HmacService, newHmacKey, MAX_EMAIL_LENGTH, MAX_ORDER_KEY_LENGTH, utf8, WebhookRequest } from "@hookgate/core/providers"
import type { Secrets, SignatureFailure, WebhookProvider } from "@hookgate/core/providers"
import { failureOf } from "../pipeline.js"
import { ScriptedMailer } from "../scripted-mailer.js"
import { describeEachHmac } from "./each-hmac.js"
import * as TestPipeline from "../TestPipeline.js"
import * as MemoryStore from "../MemoryStore.js"

/** The fields of a paying event the suite varies; `undefined` leaves the field out of the body. */
export interface PayingFields {
  readonly eventId: string
  readonly orderId?: unknown
  readonly email?: unknown
  readonly amount?: unknown
  readonly currency?: unknown
}

/** One message for the plugin's signer. */
export interface MessageToSign {
  readonly body: string | Uint8Array
  /** The event id; a scheme that signs a message id (Standard Webhooks) sends it, others find it in the body. */
  readonly eventId: string
  /** Unix seconds; a scheme that signs no timestamp ignores it. */
  readonly timestamp: number
  /** One signature per secret, in this order; a scheme with one signature per request gets one. */
  readonly secrets: Arr.NonEmptyReadonlyArray<string>
}

/** What a case expects: refused with a `SignatureError` reason, `MalformedPayload`, or sent. */
/**
 * `malformed`: 400; with `receipt`, a verified paying event whose order id or email
 * broke a rule, stored as a `malformed` receipt with an alert. `unfulfillable`: a
 * verified paying event that does not decode into a fulfilment: 500, stored as an
 * `unfulfillable` receipt with an alert, no order.
 */
export type HostileExpectation =
  | { readonly refused: SignatureFailure }
  | { readonly malformed: true; readonly receipt?: true }
  | { readonly unfulfillable: true }
  | { readonly sent: true }

/** One row of the hostile-input table. The clock stands at `now`. */
export interface HostileCase {
  readonly name: string
  readonly request: Effect.Effect<WebhookRequest>
  readonly expected: HostileExpectation
  /** The plugin is made with this tolerance (seconds) for this case. */
  readonly toleranceSeconds?: number
}

/** A plugin under test: how to make it, how its provider signs, and what its events look like. */
export interface ProviderUnderTest {
  /** The name `make` mounts the plugin under. */
  readonly name: string
  /** Makes the plugin with these secrets (newest first) and, where given, this timestamp tolerance. */
  readonly make: (options: { readonly secrets: Secrets; readonly tolerance?: Duration.DurationInput }) => Effect.Effect<WebhookProvider>
  /** Signs as the provider does and builds the request. */
  readonly sign: (message: MessageToSign) => Effect.Effect<WebhookRequest>
  /** The secret the plugin is made with, and a second (rolled) one it accepts during a roll. */
  readonly secrets: readonly [current: string, rolled: string]
  /** A well-formed secret the plugin does not hold. */
  readonly strangerSecret: string
  /** The body of a paying event for one order, with the given fields (`undefined` leaves one out). */
  readonly paying: (fields: PayingFields) => string
  /** The body of an event type the plugin ignores. */
  readonly ignored: (eventId: string) => string
  /** When the scheme signs a timestamp: the plugin's default tolerance, in seconds. */
  readonly timestamps?: { readonly defaultToleranceSeconds: number }
  /** Whether one request may carry several signatures (one per secret during a roll). */
  readonly severalSignatures: boolean
  /** Rows of the scheme's own (header shapes, encodings), run like the shared ones. */
  readonly cases?: ReadonlyArray<HostileCase>
  /** The store the pipeline cases run on; default the memory store. */
  readonly store?: () => Layer.Layer<OrderStore | Lease | AlertStore, unknown>
  /** The time the suite runs at, unix seconds. Default 1 760 000 000. */
  readonly now?: number
}

const ORDER = { orderId: "ord_conformance", email: "buyer@example.com", amount: 1900, currency: "usd" } as const

/** A text's signature-like tokens (hex, base64): what must never appear in an error. */
const signatureTokens = (request: WebhookRequest) =>
  Object.values(request.headers).flatMap((value) => value.split(/[\s,=]+/)).filter((token) => token.length >= 20)

/** An `Hmac` that delegates to `inner` and counts the keys it imports and the MACs they compute. */
const countingHmac = (inner: HmacService) => {
  const imported: Array<string> = []
  let macs = 0
  const count = (key: HmacKey): HmacKey => {
    imported.push(key.implementation)
    const signSync = key.signSync
    return newHmacKey({
      implementation: key.implementation,
      sign: (parts) => Effect.suspend(() => (macs++, key.sign(parts))),
      signSync: signSync === undefined ? undefined : (parts) => (macs++, signSync(parts)),
      equals: key.equals
    })
  }
  const service: HmacService = { name: inner.name, importKey: (secret) => Effect.map(inner.importKey(secret), count) }
  return { service, imported, macs: () => macs }
}

/**
 * The conformance suite of a provider plugin. Every row goes through
 * `receive` on a real pipeline: refused rows must fail with the right
 * `SignatureError` reason (or `MalformedPayload`), carry no secret and no
 * signature a valid request would have, and leave no order and no receipt.
 * Then the pipeline cases: sent once, duplicates, a conflict, ignored types,
 * keys imported once. The whole suite runs twice, under the Web Crypto and
 * the node:crypto `Hmac`. Run it from the plugin's tests:
 *
 *     providerConformance({ name: "acme", make, sign, secrets, strangerSecret, paying, ignored, severalSignatures: true })
 */
export const providerConformance = (plugin: ProviderUnderTest) =>
  describeEachHmac(`provider conformance: ${plugin.name}`, (it, hmac) => {
    const nowS = plugin.now ?? 1_760_000_000
    const atNow = TestClock.setTime(nowS * 1000)
    const [current, rolled] = plugin.secrets
    const redact = (secrets: ReadonlyArray<string>) => secrets.map((s) => Redacted.make(s)) as unknown as Secrets
    const makeWith = (secrets: ReadonlyArray<string>, toleranceSeconds?: number) =>
      plugin.make({ secrets: redact(secrets), ...(toleranceSeconds === undefined ? {} : { tolerance: `${toleranceSeconds} seconds` }) })
    const environment = (secrets: ReadonlyArray<string> = [current], toleranceSeconds?: number) =>
      TestPipeline.layer({
        store: plugin.store?.() ?? MemoryStore.layer,
        providers: [makeWith(secrets, toleranceSeconds)],
        mailer: { honoursIdempotencyKeys: false }
      })
    const receiveHere = (request: WebhookRequest) => receive(plugin.name, request)
    const sign = (body: string | Uint8Array, options: Partial<Omit<MessageToSign, "body">> = {}) =>
      plugin.sign({ body, eventId: options.eventId ?? "evt_conformance", timestamp: options.timestamp ?? nowS, secrets: options.secrets ?? [current] })
    const paying = (fields: Partial<PayingFields> = {}) => plugin.paying({ eventId: "evt_conformance", ...ORDER, ...fields })
    const signedPaying = (fields: Partial<PayingFields> = {}) => sign(paying(fields), fields.eventId === undefined ? {} : { eventId: fields.eventId })
    const body = paying()
    const withHeadersOf = (signed: Effect.Effect<WebhookRequest>, payload: string | Uint8Array) =>
      Effect.map(signed, (request) => WebhookRequest.fromParts(typeof payload === "string" ? utf8(payload) : payload, request.headers))

    const sharedCases: Array<HostileCase> = [
      { name: "no headers at all", request: Effect.succeed(WebhookRequest.fromParts(utf8(body), {})), expected: { refused: "missing_header" } },
      { name: "the wrong secret", request: sign(body, { secrets: [plugin.strangerSecret] }), expected: { refused: "no_matching_signature" } },
      { name: "a tampered body", request: withHeadersOf(sign(body), body.replace("1900", "1")), expected: { refused: "no_matching_signature" } },
      { name: "a body with a trailing newline added", request: withHeadersOf(sign(body), `${body}\n`), expected: { refused: "no_matching_signature" } },
      { name: "a validly signed paying event", request: sign(body), expected: { sent: true } },
      { name: "signed under the rolled secret, which the plugin does not hold", request: sign(body, { secrets: [rolled] }), expected: { refused: "no_matching_signature" } },
      { name: "a validly signed body that is not JSON", request: sign("paid, honest"), expected: { malformed: true } },
      { name: "a validly signed body that is not UTF-8", request: sign(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])), expected: { malformed: true } },
      { name: "a validly signed JSON value that is not an object", request: sign("42"), expected: { malformed: true } },
      { name: "a validly signed event without id or type", request: sign(`{"object":"event"}`), expected: { malformed: true } },
      { name: "a validly signed paying event with a text amount", request: signedPaying({ amount: "19.00" }), expected: { unfulfillable: true } },
      { name: "a validly signed paying event with a fractional amount", request: signedPaying({ amount: 19.5 }), expected: { unfulfillable: true } },
      { name: "a validly signed paying event without an email", request: signedPaying({ email: undefined }), expected: { unfulfillable: true } },
      { name: "a validly signed paying event with a blank email", request: signedPaying({ email: "  " }), expected: { unfulfillable: true } },
      { name: "a validly signed paying event without an order id", request: signedPaying({ orderId: undefined }), expected: { unfulfillable: true } },
      { name: "an order id with CR/LF", request: signedPaying({ orderId: "ord_1\r\nBcc: mallory@example.com" }), expected: { malformed: true, receipt: true } },
      { name: "an order id with a NUL", request: signedPaying({ orderId: "ord_1\u0000" }), expected: { malformed: true, receipt: true } },
      { name: "an order id with a C1 control (NEL)", request: signedPaying({ orderId: "ord_\u00851" }), expected: { malformed: true, receipt: true } },
      {
        name: `an order key of exactly ${MAX_ORDER_KEY_LENGTH} characters`,
        request: signedPaying({ orderId: "o".repeat(MAX_ORDER_KEY_LENGTH - plugin.name.length - 1) }),
        expected: { sent: true }
      },
      {
        name: `an order key of ${MAX_ORDER_KEY_LENGTH + 1} characters`,
        request: signedPaying({ orderId: "o".repeat(MAX_ORDER_KEY_LENGTH - plugin.name.length) }),
        expected: { malformed: true, receipt: true }
      },
      { name: "an email with CR/LF", request: signedPaying({ email: "a@example.com\r\nBcc: mallory@example.com" }), expected: { malformed: true, receipt: true } },
      { name: "an email with a NUL", request: signedPaying({ email: "a\u0000@example.com" }), expected: { malformed: true, receipt: true } },
      { name: "an email that is not an address", request: signedPaying({ email: "not an address" }), expected: { unfulfillable: true } },
      { name: "an email of two addresses", request: signedPaying({ email: "a@example.com, b@example.com" }), expected: { unfulfillable: true } },
      {
        name: `an email of exactly ${MAX_EMAIL_LENGTH} characters`,
        request: signedPaying({ email: `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(57)}.com` }),
        expected: { sent: true }
      },
      {
        name: `an email of ${MAX_EMAIL_LENGTH + 1} characters`,
        request: signedPaying({ email: `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(58)}.com` }),
        expected: { malformed: true, receipt: true }
      }
    ]
    if (plugin.severalSignatures) {
      sharedCases.push(
        { name: "two signatures, a stranger's and the right one", request: sign(body, { secrets: [plugin.strangerSecret, current] }), expected: { sent: true } },
        { name: "two signatures, neither under a held secret", request: sign(body, { secrets: [plugin.strangerSecret, rolled] }), expected: { refused: "no_matching_signature" } }
      )
    }
    if (plugin.timestamps !== undefined) {
      const tolerance = plugin.timestamps.defaultToleranceSeconds
      const at = (offset: number) => sign(body, { timestamp: nowS + offset })
      sharedCases.push(
        { name: `signed exactly ${tolerance} s ago`, request: at(-tolerance), expected: { sent: true } },
        { name: `signed ${tolerance + 1} s ago`, request: at(-tolerance - 1), expected: { refused: "timestamp_too_old" } },
        { name: `signed ${tolerance} s ahead`, request: at(tolerance), expected: { sent: true } },
        { name: `signed ${tolerance + 1} s ahead`, request: at(tolerance + 1), expected: { refused: "timestamp_in_future" } },
        { name: "signed 60 s ago under a 60 s tolerance", request: at(-60), expected: { sent: true }, toleranceSeconds: 60 },
        { name: "signed 61 s ago under a 60 s tolerance", request: at(-61), expected: { refused: "timestamp_too_old" }, toleranceSeconds: 60 },
        { name: "signed 60 s ahead under a 60 s tolerance", request: at(60), expected: { sent: true }, toleranceSeconds: 60 },
        { name: "signed 61 s ahead under a 60 s tolerance", request: at(61), expected: { refused: "timestamp_in_future" }, toleranceSeconds: 60 },
        { name: "a stale request under the wrong secret", request: sign(body, { timestamp: nowS - 3600, secrets: [plugin.strangerSecret] }), expected: { refused: "no_matching_signature" } }
      )
    }

    describe("hostile inputs through the pipeline", () => {
      for (const c of [...sharedCases, ...(plugin.cases ?? [])]) {
        const expected = c.expected
        const outcome = "sent" in expected
          ? "is sent"
          : "refused" in expected
          ? `is refused: ${expected.refused}`
          : "unfulfillable" in expected
          ? "is unfulfillable (500)"
          : "is malformed"
        const kept = "unfulfillable" in expected || ("malformed" in expected && expected.receipt === true)
        const stored = "sent" in expected ? "" : kept ? ", stored as a receipt with an alert, no order" : ", and nothing is stored"
        it.effect(`${c.name} ${outcome}${stored}`, () =>
          Effect.gen(function*() {
            yield* atNow
            const request = yield* c.request
            const store = yield* OrderStore
            if ("sent" in expected) {
              expect((yield* receiveHere(request))._tag).toBe("Sent")
              expect((yield* store.stats).orders.sent).toBe(1)
              return
            }
            const error = yield* failureOf(receiveHere(request))
            if ("refused" in expected) {
              expect(error).toMatchObject({ _tag: "SignatureError", provider: plugin.name, reason: expected.refused })
              // Neither a secret nor a signature a valid request would carry appears in the error.
              const text = `${String(error)} ${JSON.stringify(error)}`
              const valid = yield* sign(request.body)
              for (const forbidden of [current, rolled, ...signatureTokens(valid)]) expect(text).not.toContain(forbidden)
            } else if ("unfulfillable" in expected) {
              expect(error).toMatchObject({ _tag: "Unfulfillable", provider: plugin.name })
            } else {
              expect(error).toMatchObject({ _tag: "MalformedPayload", provider: plugin.name })
            }
            const stats = yield* store.stats
            expect(stats.orders).toEqual({ pending: 0, sent: 0, failed: 0, capped: 0, unknown: 0 })
            expect(stats.receipts).toBe(kept ? 1 : 0)
            if (kept) {
              const [receipt] = yield* store.receipts({ limit: 10 })
              expect(receipt).toMatchObject({ outcome: "unfulfillable" in expected ? "unfulfillable" : "malformed", orderKey: null })
              // The decoding error itself, as the answer carried it.
              expect(receipt!.detail).toBe((error as { readonly detail: string }).detail)
              expect(receipt!.detail).not.toBe("")
              const alerts = yield* Effect.flatMap(AlertStore, (a) => a.list({ limit: 10 }))
              expect(alerts.map((a) => a.kind)).toEqual(["unfulfillable"])
            }
          }).pipe(Effect.provide(environment([current], c.toleranceSeconds))))
      }
    })

    describe("rotation and keys", () => {
      it.effect("holding two secrets, a request signed under either is sent, and a stranger's is refused", () =>
        Effect.gen(function*() {
          yield* atNow
          expect(yield* receiveHere(yield* signedPaying({ eventId: "evt_new", orderId: "ord_new" }))).toMatchObject({ _tag: "Sent" })
          const old = yield* plugin.sign({ body: paying({ eventId: "evt_old", orderId: "ord_old" }), eventId: "evt_old", timestamp: nowS, secrets: [rolled] })
          expect(yield* receiveHere(old)).toMatchObject({ _tag: "Sent" })
          const stranger = yield* sign(body, { secrets: [plugin.strangerSecret] })
          expect(yield* failureOf(receiveHere(stranger))).toMatchObject({ reason: "no_matching_signature" })
        }).pipe(Effect.provide(environment([current, rolled]))))

      it.effect("each secret's key is imported once, when the plugin is made, with the implementation in context", () =>
        Effect.gen(function*() {
          yield* atNow
          // Sign first (a signer imports keys of its own), then count only the plugin's.
          const requests = yield* Effect.forEach([current, rolled, current, rolled], (secret) => sign(body, { secrets: [secret] }))
          const counting = countingHmac(hmac)
          const provider = yield* Effect.provideService(makeWith([current, rolled]), Hmac, counting.service)
          expect(counting.imported).toEqual([hmac.name, hmac.name])
          for (const request of requests) expect((yield* provider.verify(request)).provider).toBe(plugin.name)
          expect(counting.imported).toHaveLength(2)
          // Newest key first: a request under the current secret costs one MAC, under the rolled one two.
          expect(counting.macs()).toBe(6)
        }))
    })

    describe("through the pipeline", () => {
      const calls = Effect.flatMap(ScriptedMailer, (mailer) => mailer.calls)

      it.effect("a paying event is sent once; the same request again, and the sender's retry a minute later, are duplicates", () =>
        Effect.gen(function*() {
          yield* atNow
          const request = yield* signedPaying()
          expect(yield* receiveHere(request)).toMatchObject({ _tag: "Sent", orderKey: `${plugin.name}:${ORDER.orderId}` })
          expect((yield* receiveHere(request))._tag).toBe("Duplicate")
          yield* TestClock.adjust("1 minute")
          expect((yield* receiveHere(yield* sign(body, { timestamp: nowS + 60 })))._tag).toBe("Duplicate")
          expect(yield* calls).toHaveLength(1)
          const order = yield* Effect.flatMap(OrderStore, (store) => Effect.flatMap(store.get(`${plugin.name}:${ORDER.orderId}`), Effect.orDie))
          expect(order).toMatchObject({ status: "sent", duplicatesPrevented: 2 })
          expect(order.fulfilment).toMatchObject({ email: ORDER.email, amount: ORDER.amount, currency: ORDER.currency })
        }).pipe(Effect.provide(environment())))

      it.effect("another event for the same order with the same fields is a duplicate; with another amount, a conflict", () =>
        Effect.gen(function*() {
          yield* atNow
          expect((yield* receiveHere(yield* signedPaying({ eventId: "evt_a" })))._tag).toBe("Sent")
          expect((yield* receiveHere(yield* signedPaying({ eventId: "evt_b" })))._tag).toBe("Duplicate")
          const conflict = yield* failureOf(receiveHere(yield* signedPaying({ eventId: "evt_c", amount: 100 })))
          expect(conflict).toMatchObject({ _tag: "OrderConflict", orderKey: `${plugin.name}:${ORDER.orderId}` })
          expect(yield* calls).toHaveLength(1)
        }).pipe(Effect.provide(environment())))

      it.effect("an ignored type answers Ignored, keeps a receipt and sends nothing", () =>
        Effect.gen(function*() {
          yield* atNow
          expect((yield* receiveHere(yield* sign(plugin.ignored("evt_ignored"), { eventId: "evt_ignored" })))._tag).toBe("Ignored")
          const receipts = yield* Effect.flatMap(OrderStore, (store) => store.receipts({ limit: 10 }))
          expect(receipts.map((r) => [r.eventId, r.outcome])).toEqual([["evt_ignored", "ignored"]])
          expect(yield* calls).toHaveLength(0)
        }).pipe(Effect.provide(environment())))
    })
  })
