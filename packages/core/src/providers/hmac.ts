import * as Effect from "effect/Effect"

/**
 * HMAC-SHA256 on Web Crypto, so one code path runs in Workers and Node.
 * Keys are imported once (import is the slow part) and reused for every call.
 */

const encoder = new TextEncoder()

declare const HmacKeyBrand: unique symbol

/**
 * An imported HMAC-SHA256 key, opaque: Web Crypto's `CryptoKey` underneath, but
 * public types name only this, so users need no DOM lib.
 */
export interface HmacKey {
  readonly [HmacKeyBrand]: "HmacKey"
}

// Web Crypto's key type, named without the DOM lib's `CryptoKey`.
type WebCryptoKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>

// TypeScript 5.9's DOM types want an ArrayBuffer-backed view; every view here is one.
const buffer = (bytes: Uint8Array) => bytes as Uint8Array<ArrayBuffer>

/** The UTF-8 bytes of a string. */
export const utf8 = (text: string): Uint8Array => encoder.encode(text)

/** Imports an HMAC-SHA256 key for signing and verifying. */
export const importHmacKey = (secret: Uint8Array | string): Effect.Effect<HmacKey> =>
  Effect.promise(() =>
    crypto.subtle.importKey(
      "raw",
      buffer(typeof secret === "string" ? utf8(secret) : secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"]
    )
  ) as Effect.Effect<unknown> as Effect.Effect<HmacKey>

/** HMAC-SHA256 of the concatenated parts (so a prefix and a raw body need no copy into a string). */
export const hmacSha256 = (key: HmacKey, ...parts: ReadonlyArray<Uint8Array>): Effect.Effect<Uint8Array> =>
  Effect.promise(() => crypto.subtle.sign("HMAC", key as unknown as WebCryptoKey, buffer(concat(parts)))).pipe(
    Effect.map((mac) => new Uint8Array(mac))
  )

/** The parts joined into one byte string (the part itself when there is one). */
export const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  if (parts.length === 1) return parts[0]!
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.byteLength
  }
  return out
}

/** Compares two byte strings in time that depends only on their lengths. */
export const timingSafeEqual = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.byteLength !== b.byteLength) return false
  let diff = 0
  for (let i = 0; i < a.byteLength; i++) diff |= a[i]! ^ b[i]!
  return diff === 0
}

const HEX = /^[0-9a-fA-F]*$/

/** Lower-case hex of the bytes. */
export const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")

/** Decodes hex, or undefined when the text is not even-length hex. */
export const fromHex = (text: string): Uint8Array | undefined => {
  if (text.length % 2 !== 0 || !HEX.test(text)) return undefined
  const out = new Uint8Array(text.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16)
  return out
}

/** Standard base64 of the bytes. */
export const toBase64 = (bytes: Uint8Array): string => {
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary)
}

/** Decodes standard base64, or undefined when the text is not base64. */
export const fromBase64 = (text: string): Uint8Array | undefined => {
  try {
    const binary = atob(text)
    return Uint8Array.from(binary, (char) => char.charCodeAt(0))
  } catch {
    return undefined
  }
}
