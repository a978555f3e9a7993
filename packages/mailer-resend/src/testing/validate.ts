import type { AcceptedEmail, ResendErrorReply } from "./types.js"

/** What Resend checks in a payload, with its error names and (abridged) messages. */

export type ValidEmail = Omit<AcceptedEmail, "id" | "idempotencyKey" | "endpoint" | "acceptedAt">
type Checked<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly error: ResendErrorReply }

const ok = <A>(value: A): Checked<A> => ({ ok: true, value })
const fail = (status: number, name: string, message: string): Checked<never> => ({
  ok: false,
  error: { status, name, message }
})

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/
const MAX_RECIPIENTS = 50
export const MAX_BATCH = 100

/** The address in `a@b.c` or `Name <a@b.c>`, if it is one. */
export const addressOf = (value: string): string | undefined => {
  const match = /^\s*(?:[^<>]*<\s*([^<>\s]+)\s*>|([^<>\s]+))\s*$/.exec(value)
  const address = match?.[1] ?? match?.[2]
  return address !== undefined && ADDRESS.test(address) ? address : undefined
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const addressList = (value: unknown): ReadonlyArray<string> | undefined => {
  const list = typeof value === "string" ? [value] : Array.isArray(value) ? value : undefined
  return list !== undefined && list.length > 0 && list.every((a) => typeof a === "string" && addressOf(a) !== undefined)
    ? (list as ReadonlyArray<string>)
    : undefined
}

export const validateEmail = (
  value: unknown,
  options: { readonly inBatch: boolean; readonly verifiedDomains: ReadonlyArray<string> | undefined }
): Checked<ValidEmail> => {
  if (!isRecord(value)) return fail(422, "validation_error", "Invalid email payload: expected an object.")
  const { from, to, subject, text, html, reply_to, headers } = value
  if (typeof from !== "string") return fail(422, "missing_required_field", "Missing `from` field.")
  const sender = addressOf(from)
  if (sender === undefined) {
    return fail(
      422,
      "invalid_from_address",
      "Invalid `from` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format."
    )
  }
  const domain = sender.slice(sender.lastIndexOf("@") + 1).toLowerCase()
  if (options.verifiedDomains !== undefined && !options.verifiedDomains.map((d) => d.toLowerCase()).includes(domain)) {
    return fail(403, "validation_error", `The ${domain} domain is not verified. Please, add and verify your domain.`)
  }
  if (to === undefined) return fail(422, "missing_required_field", "Missing `to` field.")
  const recipients = addressList(to)
  if (recipients === undefined) return fail(422, "validation_error", "Invalid `to` field.")
  if (recipients.length > MAX_RECIPIENTS) {
    return fail(422, "validation_error", `Too many recipients: at most ${MAX_RECIPIENTS}.`)
  }
  if (typeof subject !== "string") return fail(422, "missing_required_field", "Missing `subject` field.")
  if (text !== undefined && typeof text !== "string") return fail(422, "validation_error", "Invalid `text` field.")
  if (html !== undefined && typeof html !== "string") return fail(422, "validation_error", "Invalid `html` field.")
  const replyTo = reply_to === undefined ? undefined : addressList(reply_to)
  if (reply_to !== undefined && replyTo === undefined) return fail(422, "validation_error", "Invalid `reply_to` field.")
  if (headers !== undefined && !(isRecord(headers) && Object.values(headers).every((v) => typeof v === "string"))) {
    return fail(422, "validation_error", "Invalid `headers` field: expected string values.")
  }
  if (options.inBatch && (value.attachments !== undefined || value.scheduled_at !== undefined)) {
    return fail(422, "validation_error", "`attachments` and `scheduled_at` are not supported in batch sends.")
  }
  return ok({
    from,
    to: recipients,
    subject,
    text: text as string | undefined,
    html: html as string | undefined,
    replyTo,
    headers: headers as Record<string, string> | undefined
  })
}

/** `POST /emails` takes one email; `POST /emails/batch` 1 to 100, all valid or none sent ("strict"). */
export const validatePayload = (
  path: "/emails" | "/emails/batch",
  body: unknown,
  verifiedDomains: ReadonlyArray<string> | undefined
): Checked<ReadonlyArray<ValidEmail>> => {
  if (path === "/emails") {
    const email = validateEmail(body, { inBatch: false, verifiedDomains })
    return email.ok ? ok([email.value]) : email
  }
  if (!Array.isArray(body) || body.length === 0 || body.length > MAX_BATCH) {
    return fail(422, "validation_error", `A batch must hold between 1 and ${MAX_BATCH} emails.`)
  }
  const emails: Array<ValidEmail> = []
  for (const [index, item] of body.entries()) {
    const email = validateEmail(item, { inBatch: true, verifiedDomains })
    if (!email.ok) return fail(email.error.status, email.error.name, `emails[${index}]: ${email.error.message}`)
    emails.push(email.value)
  }
  return ok(emails)
}
