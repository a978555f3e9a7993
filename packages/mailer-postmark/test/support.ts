import { FetchHttpClient } from "@effect/platform"
import type { MailerError, MailerShape } from "@hookgate/core/mail"
import { OutgoingEmail } from "@hookgate/core/mail"
import { Effect, Either } from "effect"
import { make, type PostmarkOptions } from "../src/Postmark.js"
import type { PostmarkTestServerShape } from "../src/testing/index.js"

export const email = (overrides: Partial<ConstructorParameters<typeof OutgoingEmail>[0]> = {}) =>
  new OutgoingEmail({
    from: "Shop <shop@example.com>",
    to: "buyer@example.com",
    subject: "Your order",
    text: "Thank you.",
    ...overrides
  })

/** A Postmark mailer pointed at the stand-in, over real HTTP (fetch). */
export const mailerFor = (server: PostmarkTestServerShape, overrides: Partial<PostmarkOptions> = {}) =>
  make({ ...server.mailerOptions, ...overrides }).pipe(Effect.provide(FetchHttpClient.layer))

export const failure = <A>(effect: Effect.Effect<A, MailerError>) =>
  Effect.flatMap(Effect.either(effect), (result) =>
    Either.isLeft(result)
      ? Effect.succeed<MailerError>(result.left)
      : Effect.dieMessage(`expected the send to fail, it answered ${JSON.stringify(result.right)}`))

export const sendError = (mailer: MailerShape, outgoing: OutgoingEmail, idempotencyKey: string) =>
  failure(mailer.send(outgoing, { idempotencyKey }))
