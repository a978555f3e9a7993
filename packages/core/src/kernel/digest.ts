import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * SHA-256, the one digest hookgate computes (the fulfilment hash of every
 * webhook, the admin token's comparison, an idempotency key too long or too
 * odd for a header). A reference: Web Crypto's by default (native on every
 * runtime, one promise), node:crypto's (synchronous) where `NodeHmac.layer()`
 * from `@hookgate/core/node` provides it, as the Node gateway does.
 */
export interface DigestService {
  /** `web-crypto`, `node:crypto`, …: for logs and test names. */
  readonly name: string
  readonly sha256: (bytes: Uint8Array) => Effect.Effect<Uint8Array>
}

// TypeScript 5.9's DOM types want an ArrayBuffer-backed view; every view here is one.
const buffer = (bytes: Uint8Array) => bytes as Uint8Array<ArrayBuffer>

/** SHA-256 on Web Crypto: Workers, browsers, Deno, Bun and Node alike. The default. */
export const webCryptoDigest: DigestService = {
  name: "web-crypto",
  // Native in every runtime: in workerd a digest costs a fraction of hashing in JavaScript
  // (which, run once per webhook, stays unoptimised for the first thousand or so).
  sha256: (bytes) =>
    Effect.promise(() => crypto.subtle.digest("SHA-256", buffer(bytes)).then((digest) => new Uint8Array(digest)))
}

/** The digest in context: Web Crypto unless a layer selects another. */
export class Digest extends Context.Reference<Digest>()("@hookgate/core/Digest", {
  defaultValue: (): DigestService => webCryptoDigest
}) {
  /** Selects an implementation. */
  static layer(service: DigestService): Layer.Layer<Digest> {
    return Layer.succeed(Digest, service)
  }
}

const encoder = new TextEncoder()

const hex = (bytes: Uint8Array): string => {
  let out = ""
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0")
  return out
}

/** The SHA-256 of `bytes` with the `Digest` in context. */
export const sha256 = (bytes: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.flatMap(Digest, (digest) => digest.sha256(bytes))

/** The SHA-256 of a text's UTF-8 bytes, as 64 lower-case hex digits. */
export const sha256Hex = (text: string): Effect.Effect<string> => Effect.map(sha256(encoder.encode(text)), hex)
