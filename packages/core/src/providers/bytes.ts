/** Byte helpers of the provider kit: UTF-8, hex, base64, concatenation and a constant-time compare. */

const encoder = new TextEncoder()

/**
 * The UTF-8 bytes of a string. A short ASCII string (a signed prefix such as
 * `${t}.`) is copied byte by byte, cheaper than a call into the encoder.
 */
export const utf8 = (text: string): Uint8Array => {
  if (text.length > 64) return encoder.encode(text)
  const out = new Uint8Array(text.length)
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code > 0x7f) return encoder.encode(text)
    out[i] = code
  }
  return out
}

/** The parts joined into one byte string (the part itself when there is one). */
export const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  if (parts.length === 1) return parts[0]!
  let length = 0
  for (const part of parts) length += part.byteLength
  const out = new Uint8Array(length)
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

const HEX_DIGITS = "0123456789abcdef"
// The value of each hex digit's char code, -1 for any other character.
const HEX_VALUES = (() => {
  const values = new Int8Array(128).fill(-1)
  for (let i = 0; i < 16; i++) {
    values[HEX_DIGITS.charCodeAt(i)] = i
    values[HEX_DIGITS.toUpperCase().charCodeAt(i)] = i
  }
  return values
})()

/** Lower-case hex of the bytes. */
export const toHex = (bytes: Uint8Array): string => {
  let out = ""
  for (const byte of bytes) out += HEX_DIGITS[byte >> 4]! + HEX_DIGITS[byte & 15]!
  return out
}

const hexValue = (code: number) => (code < 128 ? HEX_VALUES[code]! : -1)

/** Decodes hex (either case), or undefined when the text is not even-length hex. */
export const fromHex = (text: string): Uint8Array | undefined => {
  if (text.length % 2 !== 0) return undefined
  const out = new Uint8Array(text.length / 2)
  for (let i = 0; i < out.length; i++) {
    const high = hexValue(text.charCodeAt(2 * i))
    const low = hexValue(text.charCodeAt(2 * i + 1))
    if (high < 0 || low < 0) return undefined
    out[i] = (high << 4) | low
  }
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
