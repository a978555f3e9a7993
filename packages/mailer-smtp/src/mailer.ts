import {
  Mailer,
  type MailerError,
  type MailerShape,
  type OutgoingEmail,
  SendReceipt,
  Transient,
  Unknown
} from "@hookgate/core/mail"
import * as Clock from "effect/Clock"
import type * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import nodemailer from "nodemailer"
import { classifySmtpError } from "./internal/classify.js"
import { toMailOptions } from "./internal/message.js"
import { makeProbe, messageWasWritten, probePlugin, type WriteProbe, withProbe } from "./internal/probe.js"
import {
  DEFAULT_POOL_SIZE,
  DEFAULT_PORTS,
  DEFAULT_TIMEOUT,
  SmtpConfig,
  type SmtpOptions
} from "./options.js"

/** nodemailer's pooled transport for these settings. */
const createTransport = (options: SmtpOptions, timeoutMillis: number) => {
  const security = options.security ?? "starttls"
  const tls = options.tls
  const transport = nodemailer.createTransport({
    pool: true,
    host: options.host,
    port: options.port ?? DEFAULT_PORTS[security],
    secure: security === "tls",
    requireTLS: security === "starttls",
    ignoreTLS: security === "none",
    ...(options.auth === undefined ? {} : { auth: { user: options.auth.user, pass: Redacted.value(options.auth.password) } }),
    ...(tls === undefined ? {} : {
      tls: {
        ...(tls.ca === undefined ? {} : { ca: typeof tls.ca === "string" ? tls.ca : [...tls.ca] }),
        ...(tls.servername === undefined ? {} : { servername: tls.servername })
      }
    }),
    ...(options.clientName === undefined ? {} : { name: options.clientName }),
    maxConnections: options.poolSize ?? DEFAULT_POOL_SIZE,
    // nodemailer's own waits end within the call's bound, so a stuck connection frees its pool slot.
    connectionTimeout: timeoutMillis,
    greetingTimeout: timeoutMillis,
    socketTimeout: timeoutMillis,
    logger: false
  })
  transport.use("stream", probePlugin)
  return transport
}

const timedOut = (probe: WriteProbe, mailer: string, timeout: Duration.Duration): MailerError =>
  messageWasWritten(probe)
    ? new Unknown({ mailer, detail: `no reply to the message within ${Duration.format(timeout)}` })
    : new Transient({ mailer, detail: `the server did not take the message within ${Duration.format(timeout)}; nothing of it was sent` })

/**
 * A `Mailer` on an SMTP server through nodemailer's pooled transport (up to
 * `poolSize` connections, reused between sends; closed with the scope). SMTP
 * has no idempotency key, so the mailer says it honours none: after an uncertain
 * attempt (`Unknown`: the connection died once the message was being written)
 * the pipeline counts and flags the resend. Every attempt of an order carries one
 * `Message-ID`, derived from its key, so a resend is recognisable.
 */
export const make = (options: SmtpOptions): Effect.Effect<MailerShape, never, Scope.Scope> =>
  Effect.gen(function*() {
    const name = options.name ?? "smtp"
    const timeout = Duration.decode(options.timeout ?? DEFAULT_TIMEOUT)
    const transport = yield* Effect.acquireRelease(
      Effect.sync(() => createTransport(options, Duration.toMillis(timeout))),
      (transport) => Effect.sync(() => transport.close())
    )

    const send = (email: OutgoingEmail, { idempotencyKey }: { readonly idempotencyKey: string }) =>
      Effect.gen(function*() {
        const message = yield* toMailOptions(email, idempotencyKey, name)
        const probe = makeProbe()
        yield* Effect.tryPromise({
          // Interrupting the call (the timeout below, a shutdown) aborts it in the pool.
          try: (signal) => transport.sendMail(withProbe({ ...message, signal }, probe)),
          catch: (error) => classifySmtpError(error, { mailer: name, written: messageWasWritten(probe) })
        }).pipe(Effect.timeoutFail({ duration: timeout, onTimeout: () => timedOut(probe, name, timeout) }))
        const acceptedAt = yield* Clock.currentTimeMillis
        return new SendReceipt({ mailer: name, messageId: String(message.messageId), acceptedAt })
      }).pipe(Effect.withSpan("hookgate.smtp.send"))

    // Each call is bounded by `timeout`, so the pipeline needs no timer of its own.
    const mailer: MailerShape = { name, honoursIdempotencyKeys: false, callTimeout: timeout, send }
    return mailer
  })

/** The SMTP mailer as the `Mailer` service; its connections close when the layer is released. */
export const layer = (options: SmtpOptions): Layer.Layer<Mailer> => Layer.scoped(Mailer, make(options))

/**
 * The SMTP mailer from Config (`SmtpConfig` by default: `SMTP_HOST`, `SMTP_PORT`,
 * `SMTP_SECURITY`, `SMTP_USER`, `SMTP_PASSWORD`, `SMTP_POOL_SIZE`, `SMTP_TIMEOUT`,
 * `SMTP_TLS_CA_FILE`, `SMTP_TLS_SERVERNAME`).
 */
export const layerConfig = (
  config: Config.Config<SmtpOptions> = SmtpConfig
): Layer.Layer<Mailer, ConfigError.ConfigError> => Layer.scoped(Mailer, Effect.flatMap(config, make))
