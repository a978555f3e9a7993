import type { OutgoingEmail } from "@hookgate/core/mail"
import { IDEMPOTENCY_HEADER } from "../options.js"

/** Postmark's JSON for one email (PascalCase fields, headers as `{ Name, Value }`). */
export const toPostmarkEmail = (email: OutgoingEmail, idempotencyKey: string, messageStream: string | undefined) => ({
  From: email.from,
  To: email.to,
  Subject: email.subject,
  TextBody: email.text,
  ...(email.html === undefined ? {} : { HtmlBody: email.html }),
  ...(email.replyTo === undefined ? {} : { ReplyTo: email.replyTo }),
  Headers: [
    ...Object.entries(email.headers ?? {}).map(([Name, Value]) => ({ Name, Value })),
    { Name: IDEMPOTENCY_HEADER, Value: idempotencyKey }
  ],
  ...(messageStream === undefined ? {} : { MessageStream: messageStream })
})
