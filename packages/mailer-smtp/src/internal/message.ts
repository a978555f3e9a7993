import { type OutgoingEmail, Rejected } from "@hookgate/core/mail"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import addressparser from "nodemailer/lib/addressparser"
import type * as Mail from "nodemailer/lib/mailer"
import { IDEMPOTENCY_HEADER } from "../options.js"
import { messageIdFor } from "./message-id.js"

const CRLF = /[\r\n]/
// One mailbox with a local part and a domain; nodemailer encodes the rest (names, IDNs).
const ADDRESS = /^[^\s@<>]+@[^\s@<>]+$/

const mailbox = (field: string, value: string): Either.Either<{ name: string; address: string }, string> => {
  const parsed = addressparser(value, { flatten: true })
  const [first] = parsed
  if (parsed.length !== 1 || first === undefined || first.address === undefined || !ADDRESS.test(first.address)) {
    return Either.left(`${field} is not one email address: ${JSON.stringify(value)}`)
  }
  return Either.right({ name: first.name, address: first.address })
}

/**
 * The email as nodemailer's message options: one sender, one recipient, the
 * key's Message-ID, the key in `X-Hookgate-Idempotency-Key`. Refused before
 * anything is sent when an address is not one mailbox or a header has a line break.
 */
export const toMailOptions = (email: OutgoingEmail, idempotencyKey: string, mailer: string): Effect.Effect<Mail.Options, Rejected> =>
  Effect.flatMap(checked(email, idempotencyKey, mailer), ({ domain, options }) =>
    Effect.map(messageIdFor(idempotencyKey, domain), (messageId): Mail.Options => ({ ...options, messageId })))

const checked = (
  email: OutgoingEmail,
  idempotencyKey: string,
  mailer: string
): Either.Either<{ readonly options: Mail.Options; readonly domain: string }, Rejected> => {
  const invalid = (detail: string) => new Rejected({ mailer, detail, code: "invalid_email" })
  const from = mailbox("from", email.from)
  if (Either.isLeft(from)) return Either.left(invalid(from.left))
  const to = mailbox("to", email.to)
  if (Either.isLeft(to)) return Either.left(invalid(to.left))
  const replyTo = email.replyTo === undefined ? undefined : mailbox("replyTo", email.replyTo)
  if (replyTo !== undefined && Either.isLeft(replyTo)) return Either.left(invalid(replyTo.left))
  const headers: Record<string, string> = { ...email.headers, [IDEMPOTENCY_HEADER]: idempotencyKey }
  for (const [name, value] of Object.entries(headers)) {
    // A line break in a header would let the content write headers (or a body) of its own.
    if (CRLF.test(name) || CRLF.test(value)) return Either.left(invalid(`header ${JSON.stringify(name)} contains a line break`))
  }
  const domain = from.right.address.slice(from.right.address.lastIndexOf("@") + 1)
  return Either.right({ domain, options: {
    from: from.right,
    to: to.right,
    // The envelope names exactly the two mailboxes: nothing in the headers adds recipients.
    envelope: { from: from.right.address, to: [to.right.address] },
    subject: email.subject,
    text: email.text,
    ...(email.html === undefined ? {} : { html: email.html }),
    ...(replyTo === undefined ? {} : { replyTo: replyTo.right }),
    headers
  } })
}
