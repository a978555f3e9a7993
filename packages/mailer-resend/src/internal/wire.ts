import type { OutgoingEmail } from "@hookgate/core/mail"

/** Resend's JSON for one email (snake_case, `to` as a list). */
export const toResendEmail = (email: OutgoingEmail) => ({
  from: email.from,
  to: [email.to],
  subject: email.subject,
  text: email.text,
  ...(email.html === undefined ? {} : { html: email.html }),
  ...(email.replyTo === undefined ? {} : { reply_to: email.replyTo }),
  ...(email.headers === undefined ? {} : { headers: email.headers })
})
