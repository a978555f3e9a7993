import { describeEachHmac } from "@hookgate/testing/conformance"
import { Hmac, type WebhookProvider } from "@hookgate/core/providers"
import { standardSignature } from "@hookgate/provider-standard/testing"
import { expect } from "@effect/vitest"
import { validateEvent } from "@polar-sh/sdk/webhooks"
import { Effect, Either, FastCheck, TestClock } from "effect"
import { orderEvent, signPolarRequest } from "../src/testing.js"
import { makeProvider, OLD_SECRET, requestOf, SECRET } from "./support.js"

// `@polar-sh/sdk`'s validateEvent is the oracle: over generated signature variants it
// accepts exactly the requests the plugin accepts. It reads the real clock, so these
// tests run the plugin on the live Clock too, with timestamps clear of the window's edges.
const STRANGER = "polar_whs_s0me0neElsesS3cr3t"
const body = orderEvent({ orderId: "ord_oracle", email: "ada@example.com" })
const tampered = body.replace(`"total_amount":2900`, `"total_amount":1`)

const nowSeconds = () => Math.floor(Date.now() / 1000)

const polarAccepts = (payload: string, headers: Record<string, string>) => {
  try {
    validateEvent(payload, headers, SECRET)
    return true
  } catch {
    return false
  }
}

/** Whether the plugin verifies the request, on the live clock under the given Hmac. */
const hookgateAccepts = (provider: WebhookProvider, payload: string, headers: Record<string, string>) =>
  Effect.map(Effect.either(provider.verify(requestOf(payload, headers))), Either.isRight)

type Entry = "right" | "rolled" | "stranger" | "v1a" | "v2"

const Variant = FastCheck.record({
  entries: FastCheck.array(FastCheck.constantFrom<Entry>("right", "rolled", "stranger", "v1a", "v2"), { minLength: 1, maxLength: 4 }),
  offset: FastCheck.integer({ min: -450, max: 450 }).filter((s) => Math.abs(Math.abs(s) - 300) > 3),
  idTampered: FastCheck.constantFrom(false, false, false, true),
  timestampTampered: FastCheck.constantFrom(false, false, false, true),
  bodyTampered: FastCheck.constantFrom(false, false, false, true),
  separator: FastCheck.constantFrom(" ", "  ")
})
type Variant = typeof Variant extends FastCheck.Arbitrary<infer A> ? A : never

/** The request a variant describes: the entries signed over (id, timestamp, body), then the tampering. */
const requestFor = (variant: Variant) =>
  Effect.gen(function*() {
    const id = "msg_oracle"
    const timestamp = nowSeconds() + variant.offset
    const sign = (secret: string) => standardSignature(secret, { id, timestamp, body }, "raw")
    const entries = yield* Effect.forEach(variant.entries, (entry) => {
      switch (entry) {
        case "right":
          return sign(SECRET)
        case "rolled":
          return sign(OLD_SECRET)
        case "stranger":
          return sign(STRANGER)
        case "v1a":
          return Effect.succeed(`v1a,${Buffer.alloc(64, 9).toString("base64")}`)
        case "v2":
          return Effect.map(sign(SECRET), (v1) => v1.replace("v1,", "v2,"))
      }
    })
    return {
      payload: variant.bodyTampered ? tampered : body,
      headers: {
        "webhook-id": variant.idTampered ? "msg_other" : id,
        "webhook-timestamp": String(variant.timestampTampered ? timestamp + 1 : timestamp),
        "webhook-signature": entries.join(variant.separator)
      }
    }
  })

/** Both verdicts on one request. */
const verdicts = (provider: WebhookProvider, payload: string, headers: Record<string, string>) =>
  Effect.map(hookgateAccepts(provider, payload, headers), (ours) => ({ ours, polar: polarAccepts(payload, headers) }))

describeEachHmac("polar: @polar-sh/sdk's validateEvent as oracle", (it, hmac) => {
  it.effect("over generated signature variants, validateEvent accepts exactly what the plugin accepts", () =>
    Effect.gen(function*() {
      const provider = yield* makeProvider([SECRET])
      const seen = { accepted: 0, refused: 0 }
      yield* Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(Variant, (variant) =>
            Effect.runPromise(
              Effect.gen(function*() {
                const { headers, payload } = yield* requestFor(variant)
                const { ours, polar } = yield* verdicts(provider, payload, headers)
                expect(ours).toBe(polar)
                seen[ours ? "accepted" : "refused"]++
              }).pipe(Effect.provideService(Hmac, hmac))
            )),
          { numRuns: 300, seed: 20261202 }
        )
      )
      // Not vacuous: both verdicts were reached.
      expect(seen.accepted).toBeGreaterThan(10)
      expect(seen.refused).toBeGreaterThan(10)
    }), 60_000)

  it.effect("what hookgate's Polar signer signs, validateEvent accepts and parses as Polar's own order.paid", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const request = yield* signPolarRequest(SECRET, body)
      const event = validateEvent(body, request.headers, SECRET)
      expect(event.type).toBe("order.paid")
      expect(event.data).toMatchObject({ id: "ord_oracle", status: "paid", totalAmount: 2900, customer: { email: "ada@example.com" } })
      const provider = yield* makeProvider([SECRET])
      expect((yield* provider.verify(request)).id).toBe(request.header("webhook-id"))
      expect(() => validateEvent(body, request.headers, OLD_SECRET)).toThrow()
    }))

  // The variants the property leaves out: shapes no Polar delivery has, where the two differ.
  // Each is asserted both ways, so a change on either side shows here.
  it.effect("where they differ: header shapes Polar never sends (hookgate stricter on malformed entries, ids and timestamps; looser on unpadded base64 and svix-* names)", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const provider = yield* makeProvider([SECRET])
      const id = "msg_edge"
      const timestamp = nowSeconds()
      const right = yield* standardSignature(SECRET, { id, timestamp, body }, "raw")
      const base = { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": right }
      const rows: ReadonlyArray<readonly [string, Record<string, string>, { ours: boolean; polar: boolean }]> = [
        // provider-standard refuses a header with any entry it cannot read; standardwebhooks skips it.
        ["an entry without a comma beside the right one", { ...base, "webhook-signature": `garbage ${right}` }, { ours: false, polar: true }],
        ["a v1 entry that is not base64 beside the right one", { ...base, "webhook-signature": `v1,!!! ${right}` }, { ours: false, polar: true }],
        ["a v1 entry of 16 bytes beside the right one", { ...base, "webhook-signature": `v1,${Buffer.alloc(16).toString("base64")} ${right}` }, { ours: false, polar: true }],
        // standardwebhooks compares base64 text; provider-standard decodes it (padding optional).
        ["the right signature without its base64 padding", { ...base, "webhook-signature": right.replace(/=+$/, "") }, { ours: true, polar: false }],
        // provider-standard reads svix-* names when no webhook-* header is present; standardwebhooks only webhook-*.
        ["svix-* headers", { "svix-id": id, "svix-timestamp": String(timestamp), "svix-signature": right }, { ours: true, polar: false }],
        // standardwebhooks parses the timestamp with parseInt; provider-standard wants digits only.
        ["a timestamp with trailing text", { ...base, "webhook-timestamp": `${timestamp}s` }, { ours: false, polar: true }]
      ]
      for (const [name, headers, expected] of rows) {
        expect([name, yield* verdicts(provider, body, headers)]).toEqual([name, expected])
      }
      // An id holding a space or a comma (a repeated header) is refused here; standardwebhooks verifies what was signed.
      const spaced = "msg edge"
      const overSpaced = yield* standardSignature(SECRET, { id: spaced, timestamp, body }, "raw")
      expect(yield* verdicts(provider, body, { ...base, "webhook-id": spaced, "webhook-signature": overSpaced })).toEqual({ ours: false, polar: true })
    }))
})
