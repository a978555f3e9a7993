import { Effect } from "effect"

/**
 * HMAC-SHA256 on Web Crypto, so one code path runs in Workers and Node.
 * Keys are imported once (import is the slow part) and reused for every call.
 */

const encoder = new TextEncoder()

// TypeScript 5.9's DOM types want an ArrayBuffer-backed view; every view here is one.
const buffer = (bytes: Uint8Array) => bytes as Uint8Array<ArrayBuffer>

/**
 * An imported HMAC key: Web Crypto's `CryptoKey`, typed structurally so the
 * published types need neither the DOM lib nor Node's types.
 */
export interface HmacKey {
  readonly type: string
  readonly extractable: boolean
  readonly algorithm: { readonly name: string }
  readonly usages: ReadonlyArray<string>
}

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
  )

/** HMAC-SHA256 of the concatenated parts (so a prefix and a raw body need no copy into a string). */
export const hmacSha256 = (key: HmacKey, ...parts: ReadonlyArray<Uint8Array>): Effect.Effect<Uint8Array> =>
  Effect.promise(() => crypto.subtle.sign("HMAC", key as CryptoKey, buffer(concat(parts)))).pipe(Effect.map((mac) => new Uint8Array(mac)))

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

export const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")

/** Decodes hex, or undefined when the text is not even-length hex. */
export const fromHex = (text: string): Uint8Array | undefined => {
  if (text.length % 2 !== 0 || !HEX.test(text)) return undefined
  const out = new Uint8Array(text.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16)
  return out
}

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
