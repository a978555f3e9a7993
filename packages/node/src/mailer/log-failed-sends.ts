import type { MailerShape } from "@hookgate/core/mail"
import { Effect } from "effect"

/**
 * The same mailer, with every failed send logged at WARN: the error's class
 * (`Transient`, `Rejected`, `Unknown`), its message and the idempotency key
 * (which names the order). Success stays quiet: the webhook line says `sent`.
 */
export const logFailedSends = (mailer: MailerShape): MailerShape => {
  const warn = (idempotencyKey: string, error: { readonly _tag: string; readonly message: string }) =>
    Effect.logWarning("send failed").pipe(
      Effect.annotateLogs({ mailer: mailer.name, errorClass: error._tag, error: error.message, idempotencyKey })
    )
  return {
    ...mailer,
    send: (email, options) => mailer.send(email, options).pipe(Effect.tapError((error) => warn(options.idempotencyKey, error))),
    ...(mailer.sendBatch === undefined ? {} : {
      sendBatch: (emails, options) =>
        mailer.sendBatch!(emails, options).pipe(Effect.tapError((error) => warn(options.idempotencyKey, error)))
    })
  }
}
