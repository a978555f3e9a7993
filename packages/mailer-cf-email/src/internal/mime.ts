import type { OutgoingEmail } from "@hookgate/core/mail"
import { type ParsedMailbox, parseMailbox } from "./addresses.js"

const CRLF = "\r\n"
/** Outside the base64 alphabet, so no line of a base64 body can be it. */
const BOUNDARY = "hookgate_alternative_0"
/** Bytes of UTF-8 per RFC 2047 encoded word: 60 base64 characters, 72 with the wrapper (limit 75). */
const WORD_BYTES = 45
const encoder = new TextEncoder()

const base64 = (bytes: Uint8Array) => {
  let binary = ""
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}

/** RFC 2045: base64 body lines of at most 76 characters. */
const body = (text: string) => base64(encoder.encode(text)).match(/.{1,76}/g)?.join(CRLF) ?? ""

/** RFC 2047 `=?utf-8?B?…?=` words of whole characters, folded onto lines of their own. */
const encodedWords = (text: string) => {
  const words: Array<Array<number>> = []
  let chunk: Array<number> = []
  for (const char of text) {
    const bytes = encoder.encode(char)
    if (chunk.length + bytes.length > WORD_BYTES) {
      words.push(chunk.splice(0))
    }
    chunk.push(...bytes)
  }
  words.push(chunk)
  return words.map((word) => `=?utf-8?B?${base64(Uint8Array.from(word))}?=`).join(`${CRLF} `)
}

const mailbox = (field: string, text: string): string => {
  const parsed: ParsedMailbox | undefined = parseMailbox(text)
  if (parsed === undefined) throw new Error(`${field} is not an email address: ${text}`)
  return parsed.name === "" ? `<${parsed.address}>` : `${encodedWords(parsed.name)} <${parsed.address}>`
}

const part = (contentType: string, text: string) =>
  `Content-Type: ${contentType}; charset=UTF-8${CRLF}Content-Transfer-Encoding: base64${CRLF}${CRLF}${body(text)}`

/**
 * The raw MIME for the Email Routing form (RFC 5322 and 2045–2047, no dependency):
 * CRLF line ends; text, and html when given, as multipart/alternative; bodies base64
 * so any UTF-8 survives; names and the subject as encoded words; our Message-ID; the
 * renderer's headers; and the idempotency key in `X-Hookgate-Idempotency-Key`. The
 * same email, key and date give the same bytes. Throws for an address that is not one.
 */
export const buildMime = (
  email: OutgoingEmail,
  extra: {
    readonly messageId: string
    readonly headers: Readonly<Record<string, string>>
    /** The Date header, epoch milliseconds (default: now). */
    readonly date?: number
  }
): string => {
  const lines = [
    `Date: ${new Date(extra.date ?? Date.now()).toUTCString().replace("GMT", "+0000")}`,
    `From: ${mailbox("from", email.from)}`,
    ...(email.replyTo === undefined ? [] : [`Reply-To: ${mailbox("replyTo", email.replyTo)}`]),
    `To: ${mailbox("to", email.to)}`,
    `Message-ID: ${extra.messageId}`,
    `Subject: ${encodedWords(email.subject)}`,
    "MIME-Version: 1.0",
    ...Object.entries(extra.headers).map(([name, value]) => `${name}: ${value}`)
  ]
  const content = email.html === undefined
    ? part("text/plain", email.text)
    : [
      `Content-Type: multipart/alternative; boundary=${BOUNDARY}`,
      "",
      `--${BOUNDARY}`,
      part("text/plain", email.text),
      `--${BOUNDARY}`,
      part("text/html", email.html),
      `--${BOUNDARY}--`
    ].join(CRLF)
  return [...lines, content].join(CRLF)
}
