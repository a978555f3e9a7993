import { createHash, createHmac, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Digest, type DigestService } from "../kernel/digest.js"
import { Hmac, type HmacKey, type HmacService, newHmacKey } from "../providers/hmac.js"

/**
 * HMAC-SHA256 on node:crypto: `createHmac` over a `KeyObject` made once per
 * secret, compared with node:crypto's `timingSafeEqual`; SHA-256 by `createHash`.
 * Synchronous, so the provider kit verifies a webhook without a promise round
 * trip: several times the Web Crypto rate on Node. Node only (Bun and Deno too,
 * through their node:crypto); a Worker keeps the Web Crypto default.
 */

const sign = (key: KeyObject) => (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const mac = createHmac("sha256", key)
  for (const part of parts) mac.update(part)
  return mac.digest()
}

const equals = (a: Uint8Array, b: Uint8Array): boolean => a.byteLength === b.byteLength && timingSafeEqual(a, b)

const importKey = (secret: Uint8Array): HmacKey => {
  const signSync = sign(createSecretKey(secret))
  return newHmacKey({
    implementation: "node:crypto",
    sign: (parts) => Effect.sync(() => signSync(parts)),
    signSync,
    equals
  })
}

/** The node:crypto implementation of `Hmac`. */
export const service: HmacService = {
  name: "node:crypto",
  importKey: (secret) => Effect.sync(() => importKey(secret))
}

/** The node:crypto implementation of the kernel's `Digest` (SHA-256 by `createHash`). */
export const digest: DigestService = {
  name: "node:crypto",
  sha256: (bytes) => Effect.sync(() => createHash("sha256").update(bytes).digest())
}

/** The node:crypto implementation of `Hmac`, as every namespace's `make` answers its service. */
export const make = (): Effect.Effect<HmacService> => Effect.succeed(service)

/**
 * Selects node:crypto for every provider made under it and for the pipeline's
 * SHA-256 (`Digest`): `Providers.layer(Stripe.layerConfig()).pipe(Layer.provide(NodeHmac.layer()))`.
 */
export const layer = (): Layer.Layer<Hmac | Digest> => Layer.merge(Hmac.layer(service), Digest.layer(digest))
