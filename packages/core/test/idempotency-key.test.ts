import { describe, expect, it } from "@effect/vitest"
import {
  alertIdempotencyKey,
  campaignBatchKey,
  campaignRecipientKey,
  isHeaderSafeKey,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  orderIdempotencyKey,
  sha256Hex
} from "@hookgate/core/mail"

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
  it("is derived from the order key alone", () => {
    expect(orderIdempotencyKey("stripe:cs_123")).toBe("hookgate/order/stripe:cs_123")
    expect(orderIdempotencyKey("stripe:cs_123")).toBe(orderIdempotencyKey("stripe:cs_123"))
  })

  it("stays within 256 characters for a very long order key", () => {
    const long = "x".repeat(400)
    const key = orderIdempotencyKey(long)
    expect(key.length).toBeLessThanOrEqual(256)
    expect(key).toMatch(HASHED("hookgate/order/"))
    expect(orderIdempotencyKey(long + "y")).not.toBe(key)
  })

  it("keeps a key of exactly 256 characters, hashes one of 257", () => {
    const fits = "k".repeat(MAX_IDEMPOTENCY_KEY_LENGTH - "hookgate/order/".length)
    expect(orderIdempotencyKey(fits)).toBe(`hookgate/order/${fits}`)
    expect(orderIdempotencyKey(`${fits}k`)).toMatch(HASHED("hookgate/order/"))
  })

  for (const [what, orderKey] of Object.entries(hostile)) {
    it(`an order key with ${what} becomes a header-safe hashed key, stably`, () => {
      const key = orderIdempotencyKey(orderKey)
      expect(key).toBe(`hookgate/order/sha256-${sha256Hex(orderKey)}`)
      expect(isHeaderSafeKey(key)).toBe(true)
      expect(orderIdempotencyKey(orderKey)).toBe(key)
      // A real HTTP header takes it as it is.
      expect(new Headers({ "idempotency-key": key }).get("idempotency-key")).toBe(key)
    })
  }

  it("distinct hostile order keys get distinct keys", () => {
    const keys = new Set(Object.values(hostile).map(orderIdempotencyKey))
    expect(keys.size).toBe(Object.keys(hostile).length)
  })

  it("keeps spaces and every printable ASCII character as they are", () => {
    const printable = Array.from({ length: 0x7e - 0x20 + 1 }, (_, i) => String.fromCharCode(0x20 + i)).join("")
    expect(orderIdempotencyKey(printable)).toBe(`hookgate/order/${printable}`)
  })
})

describe("every key space is fitted the same way, once", () => {
  it("campaign and alert keys keep their spelling when they fit", () => {
    expect(campaignBatchKey("spring-sale", 89)).toBe("hookgate/campaign/spring-sale/batch/89")
    expect(campaignRecipientKey("c1", "a@example.com")).toBe("hookgate/campaign/c1/to/a@example.com")
    expect(alertIdempotencyKey("capped:test:o1:t")).toBe("hookgate/alert/capped:test:o1:t")
  })

  it("a long or non-ASCII recipient and a long alert id are hashed under their own prefix", () => {
    expect(campaignRecipientKey("c1", `${"a".repeat(300)}@example.com`)).toMatch(HASHED("hookgate/campaign/c1/to/"))
    expect(campaignRecipientKey("c1", "j\u00fcrgen@b\u00fccher.de")).toMatch(HASHED("hookgate/campaign/c1/to/"))
    expect(alertIdempotencyKey(`mailer_quota:${"x".repeat(300)}`)).toMatch(HASHED("hookgate/alert/"))
    expect(alertIdempotencyKey("failed:stripe:\r\n")).toMatch(HASHED("hookgate/alert/"))
  })

  it("a fitted key is a fixed point: fitting it again would change nothing", () => {
    for (const id of [...Object.values(hostile), "x".repeat(400), "stripe:cs_1"]) {
      const key = orderIdempotencyKey(id)
      expect(isHeaderSafeKey(key)).toBe(true)
    }
    expect(isHeaderSafeKey("")).toBe(false)
    expect(isHeaderSafeKey("k".repeat(257))).toBe(false)
    expect(isHeaderSafeKey("a\r\nb")).toBe(false)
  })

  it("sha256Hex is the SHA-256 of the UTF-8 bytes, as Web Crypto computes it", async () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    for (const text of Object.values(hostile)) {
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)))
      expect(sha256Hex(text)).toBe(Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(""))
    }
  })
})
