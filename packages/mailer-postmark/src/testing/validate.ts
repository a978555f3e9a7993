import type { PostmarkErrorReply } from "./types.js"

/** Postmark's API error codes the stand-in answers (https://postmarkapp.com/developer/api/overview#error-codes). */
export const ErrorCodes = {
  badToken: 10,
  invalidEmailRequest: 300,
  senderSignatureNotFound: 400,
  invalidJson: 402,
  incompatibleJson: 403,
  inactiveRecipient: 406,
  jsonRequired: 409,
  tooManyBatchMessages: 410,
  rateLimitExceeded: 429
} as const

/** One message of `POST /email` or `/email/batch`, as far as the stand-in reads it. */
export interface MessageFields {
  readonly From: string
  readonly To: string
  readonly Subject: string | undefined
  readonly TextBody: string | undefined
  readonly HtmlBody: string | undefined
  readonly ReplyTo: string | undefined
  readonly Headers: ReadonlyArray<{ readonly Name: string; readonly Value: string }>
  readonly MessageStream: string | undefined
}

export interface ValidationContext {
  readonly senderDomains: ReadonlyArray<string> | undefined
  readonly inactive: ReadonlySet<string>
}

const MAX_RECIPIENTS = 50
const MAILBOX = /^[^\s@<>,]+@[^\s@<>,]+\.[^\s@<>,]+$/

const invalid = (message: string): PostmarkErrorReply => ({
  status: 422,
  errorCode: ErrorCodes.invalidEmailRequest,
  message
})

/** `Name <a@b>` or `a@b` → `a@b`, lower-cased; undefined when it is not one mailbox. */
const addressOf = (value: string): string | undefined => {
  const match = /<([^<>]+)>\s*$/.exec(value)
  const address = (match?.[1] ?? value).trim()
  return MAILBOX.test(address) ? address.toLowerCase() : undefined
}

const optionalString = (value: unknown) => typeof value === "string" ? value : undefined

/**
 * One message checked as Postmark documents it: `From` (a sender signature) and
 * `To` (at most 50, comma separated) required, a `TextBody` or an `HtmlBody`,
 * `Headers` a list of `{ Name, Value }`, no inactive recipient.
 */
export const validateMessage = (
  body: unknown,
  context: ValidationContext
): { readonly ok: true; readonly value: MessageFields } | { readonly ok: false; readonly error: PostmarkErrorReply } => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { ok: false, error: { status: 422, errorCode: ErrorCodes.incompatibleJson, message: "The message is not a JSON object." } }
  }
  const message = body as Record<string, unknown>
  const from = optionalString(message.From)
  if (from === undefined || from.trim() === "") return { ok: false, error: invalid("Error parsing 'From': Value cannot be null or empty.") }
  const sender = addressOf(from)
  if (sender === undefined) return { ok: false, error: invalid(`Invalid 'From' address: '${from}'.`) }
  if (context.senderDomains !== undefined && !context.senderDomains.includes(sender.slice(sender.indexOf("@") + 1))) {
    return {
      ok: false,
      error: {
        status: 422,
        errorCode: ErrorCodes.senderSignatureNotFound,
        message: `The 'From' address you supplied (${from}) is not a Sender Signature on your account.`
      }
    }
  }
  const to = optionalString(message.To)
  if (to === undefined || to.trim() === "") return { ok: false, error: invalid("Error parsing 'To': Value cannot be null or empty.") }
  const recipients = to.split(",").map((part) => part.trim())
  if (recipients.length > MAX_RECIPIENTS) return { ok: false, error: invalid(`Maximum of ${MAX_RECIPIENTS} recipients allowed per email message.`) }
  const addresses: Array<string> = []
  for (const recipient of recipients) {
    const address = addressOf(recipient)
    if (address === undefined) return { ok: false, error: invalid(`Invalid 'To' address: '${recipient}'.`) }
    addresses.push(address)
  }
  const textBody = optionalString(message.TextBody)
  const htmlBody = optionalString(message.HtmlBody)
  if (!textBody && !htmlBody) return { ok: false, error: invalid("Provide either email TextBody or HtmlBody or both.") }
  const headers = message.Headers ?? []
  if (
    !Array.isArray(headers) ||
    !headers.every((h) => typeof h === "object" && h !== null && typeof h.Name === "string" && typeof h.Value === "string")
  ) {
    return { ok: false, error: { status: 422, errorCode: ErrorCodes.incompatibleJson, message: "'Headers' must be a list of { Name, Value }." } }
  }
  const inactive = addresses.filter((address) => context.inactive.has(address))
  if (inactive.length > 0) {
    return {
      ok: false,
      error: {
        status: 422,
        errorCode: ErrorCodes.inactiveRecipient,
        message: "You tried to send to recipient(s) that have been marked as inactive. " +
          `Found inactive addresses: ${inactive.join(", ")}. ` +
          "Inactive recipients are ones that have generated a hard bounce, a spam complaint, or a manual suppression."
      }
    }
  }
  return {
    ok: true,
    value: {
      From: from,
      To: to,
      Subject: optionalString(message.Subject),
      TextBody: textBody,
      HtmlBody: htmlBody,
      ReplyTo: optionalString(message.ReplyTo),
      Headers: headers as MessageFields["Headers"],
      MessageStream: optionalString(message.MessageStream)
    }
  }
}
