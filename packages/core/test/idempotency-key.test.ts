import { describe, expect, it } from "@effect/vitest"
import { Digest, sha256Hex } from "@hookgate/core"
import {
  alertIdempotencyKey,
  campaignBatchKey,
  campaignRecipientKey,
  isHeaderSafeKey,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  orderIdempotencyKey
} from "@hookgate/core/mail"
import { NodeHmac } from "@hookgate/core/node"
import { Effect } from "effect"

const HASHED = (prefix: string) => new RegExp(`^${prefix.replace(/[/.]/g, "\\$&")}sha256-[0-9a-f]{64}$`)

// What fetch's Headers (and Node's http) refuse, or would carry differently.
const hostile = {
  "CR/LF": "stripe:cs_1\r\nX-Injected: yes",
  "a lone LF": "stripe:cs_1\nx",
  "NUL": "stripe:cs_1\u0000x",
  "a character above U+00FF": "stripe:cs_\u20ac1",
  "a Latin-1 character": "stripe:cs_\u00e91",
  "an emoji": "stripe:cs_\u{1F600}",
  "a tab": "stripe:cs_1\tx",
  "DEL": "stripe:cs_1\u007fx"
}

describe("orderIdempotencyKey", () => {
  it.effect("is derived from the order key alone", () =>
    Effect.gen(function*() {
      expect(yield* orderIdempotencyKey("stripe:cs_123")).toBe("hookgate/order/stripe:cs_123")
      expect(yield* orderIdempotencyKey("stripe:cs_123")).toBe(yield* orderIdempotencyKey("stripe:cs_123"))
    }))

  it.effect("stays within 256 characters for a very long order key", () =>
    Effect.gen(function*() {
      const long = "x".repeat(400)
      const key = yield* orderIdempotencyKey(long)
      expect(key.length).toBeLessThanOrEqual(256)
      expect(key).toMatch(HASHED("hookgate/order/"))
      expect(yield* orderIdempotencyKey(long + "y")).not.toBe(key)
    }))

  it.effect("keeps a key of exactly 256 characters, hashes one of 257", () =>
    Effect.gen(function*() {
      const fits = "k".repeat(MAX_IDEMPOTENCY_KEY_LENGTH - "hookgate/order/".length)
      expect(yield* orderIdempotencyKey(fits)).toBe(`hookgate/order/${fits}`)
      expect(yield* orderIdempotencyKey(`${fits}k`)).toMatch(HASHED("hookgate/order/"))
    }))

  for (const [what, orderKey] of Object.entries(hostile)) {
    it.effect(`an order key with ${what} becomes a header-safe hashed key, stably`, () =>
      Effect.gen(function*() {
        const key = yield* orderIdempotencyKey(orderKey)
        expect(key).toBe(`hookgate/order/sha256-${yield* sha256Hex(orderKey)}`)
        expect(isHeaderSafeKey(key)).toBe(true)
        expect(yield* orderIdempotencyKey(orderKey)).toBe(key)
        // A real HTTP header takes it as it is.
        expect(new Headers({ "idempotency-key": key }).get("idempotency-key")).toBe(key)
      }))
  }

  it.effect("distinct hostile order keys get distinct keys", () =>
    Effect.gen(function*() {
      const keys = new Set(yield* Effect.forEach(Object.values(hostile), orderIdempotencyKey))
      expect(keys.size).toBe(Object.keys(hostile).length)
    }))

  it.effect("keeps spaces and every printable ASCII character as they are", () =>
    Effect.gen(function*() {
      const printable = Array.from({ length: 0x7e - 0x20 + 1 }, (_, i) => String.fromCharCode(0x20 + i)).join("")
      expect(yield* orderIdempotencyKey(printable)).toBe(`hookgate/order/${printable}`)
    }))
})

describe("every key space is fitted the same way, once", () => {
  it.effect("campaign and alert keys keep their spelling when they fit", () =>
    Effect.gen(function*() {
      expect(yield* campaignBatchKey("spring-sale", 89)).toBe("hookgate/campaign/spring-sale/batch/89")
      expect(yield* campaignRecipientKey("c1", "a@example.com")).toBe("hookgate/campaign/c1/to/a@example.com")
      expect(yield* alertIdempotencyKey("capped:test:o1:t")).toBe("hookgate/alert/capped:test:o1:t")
    }))

  it.effect("a long or non-ASCII recipient and a long alert id are hashed under their own prefix", () =>
    Effect.gen(function*() {
      expect(yield* campaignRecipientKey("c1", `${"a".repeat(300)}@example.com`)).toMatch(HASHED("hookgate/campaign/c1/to/"))
      expect(yield* campaignRecipientKey("c1", "j\u00fcrgen@b\u00fccher.de")).toMatch(HASHED("hookgate/campaign/c1/to/"))
      expect(yield* alertIdempotencyKey(`mailer_quota:${"x".repeat(300)}`)).toMatch(HASHED("hookgate/alert/"))
      expect(yield* alertIdempotencyKey("failed:stripe:\r\n")).toMatch(HASHED("hookgate/alert/"))
    }))

  it.effect("a fitted key is a fixed point: fitting it again would change nothing", () =>
    Effect.gen(function*() {
      for (const id of [...Object.values(hostile), "x".repeat(400), "stripe:cs_1"]) {
        expect(isHeaderSafeKey(yield* orderIdempotencyKey(id))).toBe(true)
      }
      expect(isHeaderSafeKey("")).toBe(false)
      expect(isHeaderSafeKey("k".repeat(257))).toBe(false)
      expect(isHeaderSafeKey("a\r\nb")).toBe(false)
    }))

  it.effect("sha256Hex is the SHA-256 of the UTF-8 bytes, as Web Crypto computes it", () =>
    Effect.gen(function*() {
      expect(yield* sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
      for (const text of Object.values(hostile)) {
        const digest = new Uint8Array(yield* Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))))
        expect(yield* sha256Hex(text)).toBe(Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(""))
      }
    }))
})

// Keys derived with @noble/hashes before the keys moved to the kernel's Digest: a key that
// changed would make every mailer that honours keys send a retried order's email again.
const PINNED: ReadonlyArray<readonly [string, Effect.Effect<string>, string]> = [
  ["order, fits", orderIdempotencyKey("stripe:cs_123"), "hookgate/order/stripe:cs_123"],
  ["order, too long", orderIdempotencyKey("k".repeat(300)), "hookgate/order/sha256-17b16d8ef494060fefa36a6a41567b8c32d213a17e02b7eeae86158cc4495461"],
  ["order, CR/LF", orderIdempotencyKey("creem:ord\r\n1"), "hookgate/order/sha256-5354fdc09053abef5d674311e771d322ac60a2161d64d538d70f29ca9002fb76"],
  ["order, non-ASCII", orderIdempotencyKey("paddle:txn_j\u00fcrgen"), "hookgate/order/sha256-0cbe2999c190c93e9d09010fc964ae9a84fe7e71bed0e80c5a0bcccb57e3b34e"],
  ["campaign batch", campaignBatchKey("spring-sale", 89), "hookgate/campaign/spring-sale/batch/89"],
  ["campaign recipient, non-ASCII", campaignRecipientKey("c1", "j\u00fcrgen@b\u00fccher.de"), "hookgate/campaign/c1/to/sha256-4875505299f9b07b4d3c92378cc8b749e345be3e800c854b822eeaf747d6f9c3"],
  ["alert, CR/LF", alertIdempotencyKey("failed:stripe:\r\n"), "hookgate/alert/sha256-3cf05909533d9679b16e6743f918a456e50d3a611dfc6ff6518755cfa39e422e"],
  ["sha256Hex", sha256Hex("hookgate/order/stripe:cs_1"), "44ffd85ddc9c7c8871663cdf1300ea50e58bde849cad547bd76c6a7adfcfdb7f"]
]

describe("the keys are byte-identical to those derived before", () => {
  for (const [name, digest] of [["Web Crypto (the default)", Digest.layer(Digest.defaultValue())], ["node:crypto (NodeHmac.layer())", NodeHmac.layer()]] as const) {
    it.effect(`under ${name}`, () =>
      Effect.gen(function*() {
        for (const [what, key, pinned] of PINNED) expect({ what, key: yield* key }).toEqual({ what, key: pinned })
      }).pipe(Effect.provide(digest)))
  }

  it.effect("a key that fits asks no Digest: its cost on the send path is the check alone", () =>
    Effect.gen(function*() {
      const refusing = { name: "refusing", sha256: () => Effect.die("a fitting key was hashed") }
      expect(yield* orderIdempotencyKey("stripe:cs_123").pipe(Effect.provideService(Digest, refusing))).toBe("hookgate/order/stripe:cs_123")
    }))
})
