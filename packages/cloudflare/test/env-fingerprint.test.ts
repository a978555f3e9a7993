import { describe, expect, it } from "@effect/vitest"
import { NodeHmac } from "@hookgate/core/node"
import { Effect } from "effect"
import { envFingerprint } from "../src/isolate.js"

// The tenant key of an `env`: equal entries give one fingerprint, whatever the object
// (a platform may build an `env` per invocation); any other secret, var or binding another.

const DB = { prepare: () => undefined }
const EMAIL = { send: () => undefined }
const shop = (secret: string, extra: Record<string, unknown> = {}) => ({ DB, EMAIL, STRIPE_WEBHOOK_SECRET: secret, EMAIL_FROM: "shop@example.com", ...extra })

describe("envFingerprint", () => {
  it.effect("a fresh env object with the same entries has the same fingerprint, before and after another shop's", () =>
    Effect.gen(function*() {
      const a = yield* envFingerprint(shop("whsec_a"))
      expect(yield* envFingerprint(shop("whsec_a"))).toBe(a)
      const b = yield* envFingerprint(shop("whsec_b"))
      expect(b).not.toBe(a)
      expect(yield* envFingerprint(shop("whsec_a"))).toBe(a)
      expect(yield* envFingerprint({ EMAIL_FROM: "shop@example.com", STRIPE_WEBHOOK_SECRET: "whsec_a", EMAIL, DB })).toBe(a)
    }))

  it.effect("one different value, an added or a missing name, or another binding object is another tenant", () =>
    Effect.gen(function*() {
      const a = yield* envFingerprint(shop("whsec_a"))
      const others = [
        shop("whsec_a", { EMAIL_FROM: "other@example.com" }),
        shop("whsec_a", { HOOKGATE_MAX_ATTEMPTS: "5" }),
        shop("whsec_a", { HOOKGATE_MAX_ATTEMPTS: undefined }),
        shop("whsec_a", { DB: { prepare: () => undefined } }),
        { DB, EMAIL, STRIPE_WEBHOOK_SECRET: "whsec_a" }
      ]
      for (const other of others) {
        expect(yield* envFingerprint(shop("whsec_a"))).toBe(a)
        expect(yield* envFingerprint(other)).not.toBe(a)
      }
    }))

  it.effect("holds no secret in the clear", () =>
    Effect.gen(function*() {
      expect(yield* envFingerprint(shop("whsec_plain_secret_value"))).not.toContain("whsec")
    }))

  // Computed with @noble/hashes before the fingerprint moved to the kernel's Digest: the same
  // bytes under Web Crypto (the Worker's) and node:crypto.
  it.effect("is the SHA-256 it was before the Digest computed it, under either implementation", () =>
    Effect.gen(function*() {
      const PINNED = "28614ab4665198a81b7548588db9c596e88d45b5dbf02cd56befcf4de81128c8"
      expect(yield* envFingerprint({ A: "1", B: 2, C: true })).toBe(PINNED)
      expect(yield* envFingerprint({ C: true, B: 2, A: "1" }).pipe(Effect.provide(NodeHmac.layer()))).toBe(PINNED)
    }))
})
