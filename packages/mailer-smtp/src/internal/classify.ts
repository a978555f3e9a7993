import { type MailerError, Misconfigured, Rejected, Transient, Unknown } from "@hookgate/core/mail"

/** The fields nodemailer sets on the errors it hands back (`NodemailerError`), as far as present. */
interface SmtpErrorFields {
  readonly code?: unknown
  readonly originalCode?: unknown
  readonly responseCode?: unknown
  readonly response?: unknown
  readonly command?: unknown
  readonly message?: unknown
  readonly name?: unknown
}

const fieldsOf = (error: unknown): SmtpErrorFields =>
  typeof error === "object" && error !== null ? error as SmtpErrorFields : { message: String(error) }

const stringOf = (value: unknown) => typeof value === "string" ? value : undefined

/** Replies about the account, not the message: authentication required, refused or unsupported. */
const AUTH_REPLIES = new Set([530, 534, 535, 538])

/** nodemailer's codes for settings that cannot work: no send succeeds until the owner fixes them. */
const MISCONFIGURED_CODES = new Set(["EAUTH", "ENOAUTH", "EOAUTH2", "ECONFIG", "ETLS", "EREQUIRETLS"])

/**
 * Node's TLS codes for a certificate the client will not trust, or a handshake with
 * a server that does not speak TLS there (`ERR_SSL_WRONG_VERSION_NUMBER`: `tls` on a
 * plain port): the TLS settings are wrong.
 */
const CERTIFICATE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_|ERR_SSL_/

/** Failures of the connection itself, with no reply from the server. */
const CONNECTION_CODES = new Set(["ECONNECTION", "ESOCKET", "ETIMEDOUT", "EDNS", "EPROXY"])

/** Refusals of this message before or without any reply (no recipient, too many, a broken body). */
const MESSAGE_CODES = new Set(["EENVELOPE", "EMESSAGE", "EMAXRECIPIENTS", "ESTREAM"])

const describe = (fields: SmtpErrorFields) => {
  const response = stringOf(fields.response)?.trim().replace(/\s+/g, " ").slice(0, 300)
  const message = stringOf(fields.message) ?? "SMTP failure"
  const command = stringOf(fields.command)
  // nodemailer's message already ends with the response when there is one.
  const text = response !== undefined && !message.includes(response) ? `${message}: ${response}` : message
  return command === undefined ? text : `${text} (at ${command})`
}

export interface ClassifyContext {
  readonly mailer: string
  /** Whether any byte of the message reached the connection (`messageWasWritten`). */
  readonly written: boolean
}

/**
 * A failed nodemailer send into the core's four classes:
 * - a 5xx reply to AUTH (`EAUTH`) or STARTTLS (`ETLS`: not offered), or 530/534/535/538:
 *   `Misconfigured` (the orders wait, the owner is alerted);
 * - any other 4xx (421, 450, 451, 452, 454): `Transient`;
 * - a 5xx to MAIL FROM (the sender is refused; every order would be), except 552 (size): `Misconfigured`;
 * - every other 5xx (550, 553 to RCPT TO; 552, 554 to the message): `Rejected`, code `smtp_<reply>`;
 * - no reply: the settings (`ETLS`, a certificate not trusted, no credentials): `Misconfigured`;
 *   the connection failed (`ECONNECTION`, `ESOCKET`, `ETIMEDOUT`, a 2xx/3xx where none belongs):
 *   `Unknown` once the message was being written (the server may hold it), else `Transient`;
 *   a message nodemailer refused to send (`EENVELOPE` without a reply): `Rejected`.
 */
export const classifySmtpError = (error: unknown, context: ClassifyContext): MailerError => {
  const { mailer, written } = context
  const fields = fieldsOf(error)
  const code = stringOf(fields.code)
  const originalCode = stringOf(fields.originalCode)
  const command = stringOf(fields.command) ?? ""
  const reply = typeof fields.responseCode === "number" ? fields.responseCode : undefined
  const detail = describe(fields)

  if (reply !== undefined && reply >= 400 && reply < 600) {
    const replyCode = `smtp_${reply}`
    if ((code !== undefined && MISCONFIGURED_CODES.has(code)) || AUTH_REPLIES.has(reply)) {
      // 454: a temporary failure of AUTH or TLS; the settings may be right.
      return reply < 500 ? new Transient({ mailer, detail }) : new Misconfigured({ mailer, detail, code: replyCode })
    }
    if (reply < 500) return new Transient({ mailer, detail })
    // 503 is a command out of sequence: the session's state, not the message (nodemailer agrees).
    if (reply === 503) return new Transient({ mailer, detail })
    if (command.startsWith("MAIL FROM") && reply !== 552) return new Misconfigured({ mailer, detail, code: replyCode })
    return new Rejected({ mailer, detail, code: replyCode })
  }
  if (code !== undefined && MISCONFIGURED_CODES.has(code)) {
    return new Misconfigured({ mailer, detail, code: code.toLowerCase() })
  }
  if (CERTIFICATE.test(originalCode ?? "") || CERTIFICATE.test(code ?? "")) {
    return new Misconfigured({ mailer, detail, code: "tls" })
  }
  if (reply === undefined && code !== undefined && MESSAGE_CODES.has(code) && !written) {
    return new Rejected({ mailer, detail, code: code.toLowerCase() })
  }
  if (written) return new Unknown({ mailer, detail: `the connection failed after the message was sent: ${detail}` })
  return new Transient({
    mailer,
    detail: code !== undefined && CONNECTION_CODES.has(code) ? `${detail}; nothing of the message was sent` : detail
  })
}
