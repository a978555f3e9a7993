import { FetchHttpClient } from "@effect/platform"
import type { MailerError, MailerShape } from "@hookgate/core/mail"
import { OutgoingEmail } from "@hookgate/core/mail"
import { Effect, Either } from "effect"
import { make, type ResendOptions } from "../src/Resend.js"
import type { ResendTestServerShape } from "../src/testing/index.js"

export const email = (overrides: Partial<ConstructorParameters<typeof OutgoingEmail>[0]> = {}) =>
  new OutgoingEmail({
    from: "Shop <shop@example.com>",
    to: "buyer@example.com",
    subject: "Your order",
    text: "Thank you.",
    ...overrides
  })

/** A Resend mailer pointed at the test server, over real HTTP (fetch). */
export const mailerFor = (server: ResendTestServerShape, overrides: Partial<ResendOptions> = {}) =>
  make({ ...server.mailerOptions, ...overrides }).pipe(Effect.provide(FetchHttpClient.layer))

export const sendError = (mailer: MailerShape, outgoing: OutgoingEmail, idempotencyKey: string) =>
  Effect.flatMap(Effect.either(mailer.send(outgoing, { idempotencyKey })), (result) =>
    Either.isLeft(result)
      ? Effect.succeed<MailerError>(result.left)
      : Effect.dieMessage(`expected the send to fail, it answered ${result.right.messageId}`))
