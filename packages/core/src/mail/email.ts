import * as Schema from "effect/Schema"

const fields = {
  from: Schema.NonEmptyTrimmedString,
  to: Schema.NonEmptyTrimmedString,
  subject: Schema.String,
  text: Schema.String,
  html: Schema.optional(Schema.String),
  replyTo: Schema.optional(Schema.String),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
}

type OutgoingEmailProps = Schema.Struct.Constructor<typeof fields>

// What the schema reads: own enumerable properties (it validates a spread copy).
const has = (props: object, key: string) => Object.prototype.propertyIsEnumerable.call(props, key)
const field = (props: object, key: string): unknown => has(props, key) ? (props as Record<string, unknown>)[key] : undefined
const nonEmptyTrimmed = (value: unknown) => typeof value === "string" && value.length > 0 && value === value.trim()
const optionalString = (props: object, key: string) => field(props, key) === undefined || typeof field(props, key) === "string"

/**
 * The fields the schema would keep, when they are plainly what it accepts (no
 * `headers`, whose record it checks key by key); otherwise undefined, and the
 * schema validates as usual, with its usual errors.
 */
const plainlyValid = (props: OutgoingEmailProps): OutgoingEmailProps | undefined => {
  if (
    typeof props !== "object" || props === null || has(props, "headers") ||
    !nonEmptyTrimmed(field(props, "from")) || !nonEmptyTrimmed(field(props, "to")) ||
    typeof field(props, "subject") !== "string" || typeof field(props, "text") !== "string" ||
    !optionalString(props, "html") || !optionalString(props, "replyTo")
  ) return undefined
  const kept: { -readonly [K in keyof OutgoingEmailProps]: OutgoingEmailProps[K] } = {
    from: props.from,
    to: props.to,
    subject: props.subject,
    text: props.text
  }
  if (has(props, "html")) kept.html = props.html
  if (has(props, "replyTo")) kept.replyTo = props.replyTo
  return kept
}

/**
 * The email the renderer builds for a fulfilment and the mailer sends.
 *
 * Built once per webhook by the merchant's renderer, so an email that is plainly
 * valid (two non-empty trimmed addresses, string subject and text, no headers)
 * skips Schema's general validation, the costliest construction on a webhook's
 * path; every other input is validated by the schema as before. The two give the same
 * instance or the same refusal (`test/outgoing-email.test.ts`).
 */
export class OutgoingEmail extends Schema.Class<OutgoingEmail>("OutgoingEmail")(fields) {
  constructor(props: OutgoingEmailProps, options?: Schema.MakeOptions) {
    const kept = options === undefined ? plainlyValid(props) : undefined
    super(kept ?? props, kept === undefined ? options : true)
  }
}

/** What a mailer answers when it accepted an email. */
export class SendReceipt extends Schema.Class<SendReceipt>("SendReceipt")({
  mailer: Schema.String,
  messageId: Schema.String,
  acceptedAt: Schema.Number
}) {}

/**
 * The one rule for every value that ends up in a header (from, to, subject,
 * reply-to, each extra header's name and value): no CR, LF or other control
 * character but tab, and header names are RFC 5322 field names. Checked in core
 * before any mailer is called (`sendLeased`, campaign batches), so every mailer
 * refuses what one refuses: a line break in a subject built from a signed
 * event's metadata (`"Widget\r\nBcc: …"`) would add a header on a mailer that
 * writes MIME and be sent verbatim by an API mailer. Refused, never stripped:
 * the order ends `failed` with an alert, as a `Rejected` send does.
 *
 * Answers what is wrong (naming the field, never its value), or undefined.
 */
export const headerProblem = (email: OutgoingEmail): string | undefined => {
  // eslint-disable-next-line no-control-regex
  const control = /[\u0000-\u0008\u000a-\u001f\u007f]/
  const fields: ReadonlyArray<readonly [string, string | undefined]> = [
    ["from", email.from],
    ["to", email.to],
    ["subject", email.subject],
    ["replyTo", email.replyTo]
  ]
  for (const [name, value] of fields) {
    if (value !== undefined && control.test(value)) return `the email's ${name} holds a line break or control character: no header may carry one`
  }
  for (const [name, value] of Object.entries(email.headers ?? {})) {
    if (!/^[!-9;-~]+$/.test(name)) return "an extra header's name is not a header field name"
    if (control.test(value)) return `the email's ${name} header holds a line break or control character: no header may carry one`
  }
  return undefined
}
