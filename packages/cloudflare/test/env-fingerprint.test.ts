import { describe, expect, it } from "@effect/vitest"
import { envFingerprint } from "../src/isolate.js"

// The tenant key of an `env`: equal entries give one fingerprint, whatever the object
// (a platform may build an `env` per invocation); any other secret, var or binding another.

const DB = { prepare: () => undefined }
const EMAIL = { send: () => undefined }
const shop = (secret: string, extra: Record<string, unknown> = {}) => ({ DB, EMAIL, STRIPE_WEBHOOK_SECRET: secret, EMAIL_FROM: "shop@example.com", ...extra })

describe("envFingerprint", () => {
  it("a fresh env object with the same entries has the same fingerprint, before and after another shop's", () => {
    const a = envFingerprint(shop("whsec_a"))
    expect(envFingerprint(shop("whsec_a"))).toBe(a)
    const b = envFingerprint(shop("whsec_b"))
    expect(b).not.toBe(a)
    expect(envFingerprint(shop("whsec_a"))).toBe(a)
    expect(envFingerprint({ EMAIL_FROM: "shop@example.com", STRIPE_WEBHOOK_SECRET: "whsec_a", EMAIL, DB })).toBe(a)
  })

  it("one different value, an added or a missing name, or another binding object is another tenant", () => {
    const a = envFingerprint(shop("whsec_a"))
    const others = [
      shop("whsec_a", { EMAIL_FROM: "other@example.com" }),
      shop("whsec_a", { HOOKGATE_MAX_ATTEMPTS: "5" }),
      shop("whsec_a", { HOOKGATE_MAX_ATTEMPTS: undefined }),
      shop("whsec_a", { DB: { prepare: () => undefined } }),
      { DB, EMAIL, STRIPE_WEBHOOK_SECRET: "whsec_a" }
    ]
    for (const other of others) {
      expect(envFingerprint(shop("whsec_a"))).toBe(a)
      expect(envFingerprint(other)).not.toBe(a)
    }
  })

  it("holds no secret in the clear", () => {
    expect(envFingerprint(shop("whsec_plain_secret_value"))).not.toContain("whsec")
  })
})
