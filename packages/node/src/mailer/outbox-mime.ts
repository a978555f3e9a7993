import type { OutgoingEmail } from "@hookgate/core/mail"
import MailComposer from "nodemailer/lib/mail-composer"

/**
 * The outbox's MIME, built by nodemailer's MailComposer: bodies as
 * quoted-printable text (readable with `cat`, any UTF-8 intact), headers
 * encoded by the library. A header value with a line break or a NUL is
 * refused before that: it would otherwise add headers (`Bcc:`, a second
 * `Subject:`) to the message.
 */

export const IDEMPOTENCY_HEADER = "X-Hookgate-Idempotency-Key"

// eslint-disable-next-line no-control-regex
const BREAKS = /[\r\n\u0000\u2028\u2029\u0085]/

export class UnsafeHeader extends Error {
  constructor(readonly field: string) {
    super(`the ${field} contains a line break or a NUL character, which could inject headers`)
  }
}

/** Printable ASCII but `%` stays; anything else is percent-encoded (UTF-8), so every key is a one-line, reversible header value. */
export const headerSafeKey = (key: string) =>
  Array.from(key, (char) =>
    /^[\x21-\x24\x26-\x7e]$/.test(char)
      ? char
      : Array.from(Buffer.from(char, "utf8"), (b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("")).join("")

const refuseBreaks = (field: string, value: string | undefined) => {
  if (value !== undefined && BREAKS.test(value)) throw new UnsafeHeader(field)
}

export const buildOutboxMime = (
  email: OutgoingEmail,
  extra: { readonly messageId: string; readonly idempotencyKey: string; readonly date: Date }
): Promise<Buffer> => {
  refuseBreaks("From address", email.from)
  refuseBreaks("To address", email.to)
  refuseBreaks("Reply-To address", email.replyTo)
  refuseBreaks("subject", email.subject)
  for (const [name, value] of Object.entries(email.headers ?? {})) {
    if (!/^[A-Za-z0-9-]+$/.test(name)) throw new UnsafeHeader(`header name ${JSON.stringify(name)}`)
    refuseBreaks(`${name} header`, value)
  }
  const composer = new MailComposer({
    from: email.from,
    to: email.to,
    ...(email.replyTo === undefined ? {} : { replyTo: email.replyTo }),
    subject: email.subject,
    text: email.text,
    ...(email.html === undefined ? {} : { html: email.html }),
    messageId: extra.messageId,
    date: extra.date,
    textEncoding: "quoted-printable",
    headers: { ...email.headers, [IDEMPOTENCY_HEADER]: headerSafeKey(extra.idempotencyKey) }
  })
  return new Promise((resolve, reject) => composer.compile().build((error, message) => (error ? reject(error) : resolve(message))))
}
