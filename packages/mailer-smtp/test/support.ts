import type { MailerError, MailerShape } from "@hookgate/core/mail"
import { OutgoingEmail } from "@hookgate/core/mail"
import { Effect, Either } from "effect"
import { generate } from "selfsigned"

export const email = (overrides: Partial<ConstructorParameters<typeof OutgoingEmail>[0]> = {}) =>
  new OutgoingEmail({
    from: "Shop <shop@example.com>",
    to: "buyer@example.com",
    subject: "Your order",
    text: "Thank you.",
    ...overrides
  })

/** A self-signed certificate for 127.0.0.1 and localhost, made for this test run. */
export const selfSignedCertificate = async () => {
  const pems = await generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    algorithm: "sha256",
    extensions: [
      { name: "basicConstraints", cA: true },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, keyCertSign: true },
      { name: "subjectAltName", altNames: [{ type: 2, value: "localhost" }, { type: 7, ip: "127.0.0.1" }] }
    ]
  })
  return { key: pems.private, cert: pems.cert }
}

export const sendError = (mailer: MailerShape, outgoing: OutgoingEmail, idempotencyKey: string) =>
  Effect.flatMap(Effect.either(mailer.send(outgoing, { idempotencyKey })), (result) =>
    Either.isLeft(result)
      ? Effect.succeed<MailerError>(result.left)
      : Effect.dieMessage(`expected the send to fail, it answered ${result.right.messageId}`))
