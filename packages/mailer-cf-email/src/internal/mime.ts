import type { OutgoingEmail } from "@hookgate/core/mail"
import { createMimeMessage, Mailbox } from "mimetext/browser"

/** RFC 2045: base64 body lines of at most 76 characters. */
const wrap = (base64: string) => base64.match(/.{1,76}/g)?.join("\r\n") ?? ""

/**
 * The raw MIME for the Email Routing form, built by mimetext (its runtime-neutral
 * build: CRLF line ends, no Node APIs): text, and html when given, as
 * multipart/alternative; bodies base64 so any UTF-8 survives; our Message-ID; the
 * renderer's headers; and the idempotency key in `X-Hookgate-Idempotency-Key`.
 * Throws a `MIMETextError` for what mimetext cannot express.
 */
export const buildMime = (
  email: OutgoingEmail,
  extra: { readonly messageId: string; readonly headers: Readonly<Record<string, string>> }
): string => {
  const message = createMimeMessage()
  message.setSender(email.from)
  message.setRecipient(email.to)
  message.setSubject(email.subject)
  message.setHeader("Message-ID", extra.messageId)
  if (email.replyTo !== undefined) message.setHeader("Reply-To", new Mailbox(email.replyTo))
  for (const [name, value] of Object.entries(extra.headers)) message.setHeader(name, value)
  message.addMessage({ contentType: "text/plain", encoding: "base64", data: wrap(message.toBase64(email.text)) })
  if (email.html !== undefined) {
    message.addMessage({ contentType: "text/html", encoding: "base64", data: wrap(message.toBase64(email.html)) })
  }
  return message.asRaw()
}
