import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { concat, timingSafeEqual, utf8 } from "./bytes.js"

/**
 * HMAC-SHA256 as a service, so one code path runs on any runtime: Web Crypto by default (Workers,
 * browsers, Node, and no `node:` import in core), node:crypto where
 * `NodeHmac.layer()` from `@hookgate/core/node` provides it (the Node gateway
 * does). Keys are imported once per secret and carry their own implementation,
 * so a key always signs the way it was imported.
 */

const HmacKeyTypeId: unique symbol = Symbol.for("@hookgate/core/HmacKey")
type HmacKeyTypeId = typeof HmacKeyTypeId

/**
 * An imported HMAC-SHA256 key. Public types name only this (no DOM lib's
 * `CryptoKey`, no Node `KeyObject`); the key underneath never leaves it.
 */
export interface HmacKey {
  readonly [HmacKeyTypeId]: HmacKeyTypeId
  /** Which implementation imported it: `web-crypto`, `node:crypto`, … */
  readonly implementation: string
  /** HMAC-SHA256 of the concatenated parts. */
  readonly sign: (parts: ReadonlyArray<Uint8Array>) => Effect.Effect<Uint8Array>
  /**
   * The same MAC computed synchronously, where the implementation can (node:crypto);
   * undefined for Web Crypto, whose answer is a promise. With it the kit verifies
   * without suspending the fiber.
   */
  readonly signSync: ((parts: ReadonlyArray<Uint8Array>) => Uint8Array) | undefined
  /** Compares two MACs in time that depends only on their lengths. */
  readonly equals: (a: Uint8Array, b: Uint8Array) => boolean
}

/** What an HMAC implementation offers: importing a secret's key, once. (SHA-256 is the kernel's `Digest`.) */
export interface HmacService {
  /** `web-crypto`, `node:crypto`, …: for logs and test names. */
  readonly name: string
  readonly importKey: (secret: Uint8Array) => Effect.Effect<HmacKey>
}

/** Makes an `HmacKey` from an implementation's parts (for an implementation of `HmacService`). */
export const newHmacKey = (parts: Omit<HmacKey, HmacKeyTypeId>): HmacKey => ({ [HmacKeyTypeId]: HmacKeyTypeId, ...parts })

// Web Crypto's key type, named without the DOM lib's `CryptoKey`.
type WebCryptoKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>

// TypeScript 5.9's DOM types want an ArrayBuffer-backed view; every view here is one.
const buffer = (bytes: Uint8Array) => bytes as Uint8Array<ArrayBuffer>

const webCryptoKey = (key: WebCryptoKey): HmacKey =>
  newHmacKey({
    implementation: "web-crypto",
    sign: (parts) =>
      Effect.promise(() => crypto.subtle.sign("HMAC", key, buffer(concat(parts))).then((mac) => new Uint8Array(mac))),
    signSync: undefined,
    equals: timingSafeEqual
  })

/** HMAC-SHA256 on Web Crypto: Workers, browsers, Deno, Bun and Node alike. The default. */
export const webCryptoHmac: HmacService = {
  name: "web-crypto",
  importKey: (secret) =>
    Effect.map(
      Effect.promise(() =>
        crypto.subtle.importKey("raw", buffer(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"])
      ),
      webCryptoKey
    )
}

/**
 * The HMAC implementation providers import their keys with. A reference: without
 * a layer it is Web Crypto. On Node, `NodeHmac.layer()` (`@hookgate/core/node`)
 * selects node:crypto, several times faster per webhook.
 */
export class Hmac extends Context.Reference<Hmac>()("@hookgate/core/Hmac", {
  defaultValue: (): HmacService => webCryptoHmac
}) {
  /** Selects an implementation, for the layers that make providers. */
  static layer(service: HmacService): Layer.Layer<Hmac> {
    return Layer.succeed(Hmac, service)
  }
}

/** Imports an HMAC-SHA256 key with the `Hmac` in context (Web Crypto unless another is provided). */
export const importHmacKey = (secret: Uint8Array | string): Effect.Effect<HmacKey> =>
  Effect.flatMap(Hmac, (hmac) => hmac.importKey(typeof secret === "string" ? utf8(secret) : secret))

/** HMAC-SHA256 of the concatenated parts (so a prefix and a raw body need no copy into a string). */
export const hmacSha256 = (key: HmacKey, ...parts: ReadonlyArray<Uint8Array>): Effect.Effect<Uint8Array> => key.sign(parts)
