import { spanWhenTraced } from "@hookgate/core"
import {
  boundedCall,
  Mailer,
  type MailerShape,
  type OutgoingEmail,
  Rejected,
  SendReceipt,
  Unknown
} from "@hookgate/core/mail"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { EmailMessageConstructor, EmailMessageLike, EmailSendingMessage } from "./binding.js"
import { domainOf, type ParsedMailbox, parseMailbox } from "./internal/addresses.js"
import { classifyThrown, type ClassifyOptions } from "./internal/classify.js"
import { importEmailMessage } from "./internal/email-message.js"
import { messageIdFor } from "./internal/message-id.js"
import { buildMime } from "./internal/mime.js"
import {
  type CloudflareEmailOptions,
  DEFAULT_QUOTA_RETRY_AFTER,
  DEFAULT_TIMEOUT,
  IDEMPOTENCY_HEADER
} from "./options.js"

const CRLF = /[\r\n]/

/** The addresses and headers of an email, checked before anything is handed to the binding. */
const prepare = (email: OutgoingEmail, idempotencyKey: string, mailer: string) =>
  Effect.gen(function*() {
    const invalid = (detail: string) => new Rejected({ mailer, detail, code: "invalid_email" })
    const mailbox = (field: string, value: string) => {
      const parsed = parseMailbox(value)
      return parsed === undefined ? Effect.fail(invalid(`${field} is not an email address: ${value}`)) : Effect.succeed(parsed)
    }
    const from = yield* mailbox("from", email.from)
    const to = yield* mailbox("to", email.to)
    const replyTo = email.replyTo === undefined ? undefined : yield* mailbox("replyTo", email.replyTo)
    const headers = { ...email.headers, [IDEMPOTENCY_HEADER]: idempotencyKey }
    for (const [name, value] of Object.entries(headers)) {
      // A line break in a header would let the content write headers of its own.
      if (CRLF.test(name) || CRLF.test(value)) return yield* invalid(`header ${JSON.stringify(name)} contains a line break`)
    }
    return { from, to, replyTo, headers }
  })

const asBuilderAddress = (mailbox: ParsedMailbox) =>
  mailbox.name === "" ? mailbox.address : { email: mailbox.address, name: mailbox.name }

const messageIdOf = (result: unknown): string | undefined =>
  typeof result === "object" && result !== null && typeof (result as { messageId?: unknown }).messageId === "string"
    ? (result as { messageId: string }).messageId
    : undefined

/**
 * A `Mailer` on a Workers `send_email` binding, in either of its forms. The
 * binding documents no idempotency, so the mailer says it does not honour keys
 * (the pipeline then counts and reports a resend after an uncertain attempt);
 * the key still travels in `X-Hookgate-Idempotency-Key` for tracing.
 */
export const make = (options: CloudflareEmailOptions): Effect.Effect<MailerShape> =>
  Effect.sync(() => {
    const name = options.name ?? "cloudflare-email"
    const timeout = Duration.decode(options.timeout ?? DEFAULT_TIMEOUT)
    const classify: ClassifyOptions = {
      mailer: name,
      quotaRetryAfter: Duration.decode(options.quotaRetryAfter ?? DEFAULT_QUOTA_RETRY_AFTER)
    }
    const binding = options.binding
    const onTimeout = () => new Unknown({ mailer: name, detail: `no answer from the binding within ${Duration.format(timeout)}` })
    const classifyError = (error: unknown) => classifyThrown(error, classify)
    const call = (message: () => Promise<unknown>) => boundedCall({ try: message, catch: classifyError, timeout, onTimeout })

    const sendStructured = (email: OutgoingEmail, idempotencyKey: string) =>
      Effect.gen(function*() {
        const { from, headers, replyTo, to } = yield* prepare(email, idempotencyKey, name)
        const message: EmailSendingMessage = {
          from: asBuilderAddress(from),
          to: to.address,
          subject: email.subject,
          text: email.text,
          ...(email.html === undefined ? {} : { html: email.html }),
          ...(replyTo === undefined ? {} : { replyTo: asBuilderAddress(replyTo) }),
          headers
        }
        const result = yield* call(() => binding.send(message))
        return messageIdOf(result) ?? (yield* messageIdFor(idempotencyKey, domainOf(from.address)))
      })

    const noEmailMessage = () =>
      new Rejected({
        mailer: name,
        detail: "cloudflare:email is not available here: pass EmailMessage in the options",
        code: "no_email_message"
      })
    const emailMessage = (): Promise<EmailMessageConstructor> =>
      options.form === "routing" && options.EmailMessage !== undefined
        ? Promise.resolve(options.EmailMessage)
        : importEmailMessage().catch(() => Promise.reject(noEmailMessage()))

    const sendRaw = (email: OutgoingEmail, idempotencyKey: string) =>
      Effect.gen(function*() {
        const { from, headers, to } = yield* prepare(email, idempotencyKey, name)
        const messageId = yield* messageIdFor(idempotencyKey, domainOf(from.address))
        const date = yield* Clock.currentTimeMillis
        // One bound over loading EmailMessage, building the message and the call. Whatever fails
        // before the call (a Rejected of ours) was never sent; what the binding throws is classified.
        const result = yield* boundedCall({
          try: async () => {
            const EmailMessage = await emailMessage()
            let message: EmailMessageLike
            try {
              message = new EmailMessage(from.address, to.address, buildMime(email, { messageId, headers, date }))
            } catch (error) {
              throw new Rejected({ mailer: name, detail: `the message could not be built: ${String(error)}`, code: "invalid_email" })
            }
            return binding.send(message)
          },
          catch: (error) => error instanceof Rejected ? error : classifyError(error),
          timeout,
          onTimeout
        })
        return messageIdOf(result) ?? messageId
      })

    const send = (email: OutgoingEmail, { idempotencyKey }: { readonly idempotencyKey: string }) =>
      (options.form === "sending" ? sendStructured(email, idempotencyKey) : sendRaw(email, idempotencyKey)).pipe(
        // A string name and message id (`messageIdOf` checks the binding's) and the Clock's time: nothing to validate.
        Effect.flatMap((messageId) =>
          Effect.clockWith((clock) =>
            Effect.succeed(new SendReceipt({ mailer: name, messageId, acceptedAt: clock.unsafeCurrentTimeMillis() }, true))
          )
        ),
        spanWhenTraced("cloudflare_email.send", { form: options.form })
      )

    // Each call is bounded by `timeout` (`boundedCall`), so the pipeline needs no timer of its own.
    const mailer: MailerShape = { name, honoursIdempotencyKeys: false, callTimeout: timeout, send }
    return mailer
  })

/** The binding's mailer as the `Mailer` service: `layer({ binding: env.EMAIL, form: "sending" })`. */
export const layer = (options: CloudflareEmailOptions): Layer.Layer<Mailer> => Layer.effect(Mailer, make(options))
