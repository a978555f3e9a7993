import { Mailer, type MailerShape, Rejected, SendReceipt, Transient } from "@hookgate/core/mail"
import { CloudflareEmail } from "@hookgate/mailer-cf-email"
import { Clock, Effect, Layer } from "effect"
import { mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"

/**
 * A local outbox: each accepted email becomes an `.eml` file named after its
 * idempotency key. It does not honour keys, like a plain SMTP relay: a second
 * accepted send of one order is written beside the first (`…~2.eml`), so a
 * duplicate is visible as a collision instead of silently overwriting. The MIME
 * is the same as the Cloudflare Email Routing form's (mimetext, CRLF, base64 bodies).
 */
export const makeOutboxMailer = (directory: string): MailerShape => {
  const fileBase = (key: string) => key.replace(/[^A-Za-z0-9._-]+/g, "_")

  // Writes with `wx` (fail if it exists), trying the next free suffix on a collision.
  const writeNew = async (base: string, content: string): Promise<string> => {
    for (let n = 1; ; n++) {
      const path = join(directory, n === 1 ? `${base}.eml` : `${base}~${n}.eml`)
      try {
        await writeFile(path, content, { flag: "wx" })
        return path
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      }
    }
  }

  return {
    name: "outbox",
    honoursIdempotencyKeys: false,
    send: (email, { idempotencyKey }) =>
      Effect.gen(function*() {
        const raw = yield* Effect.try({
          try: () =>
            CloudflareEmail.buildMime(email, {
              messageId: `<${crypto.randomUUID()}@outbox.hookgate.localhost>`,
              headers: { ...email.headers, [CloudflareEmail.IDEMPOTENCY_HEADER]: idempotencyKey }
            }),
          catch: (cause) => new Rejected({ mailer: "outbox", detail: `cannot build this email: ${String(cause)}` })
        })
        const path = yield* Effect.tryPromise({
          try: async () => {
            await mkdir(directory, { recursive: true })
            return writeNew(fileBase(idempotencyKey), raw)
          },
          // Nothing was written: safe to retry.
          catch: (cause) => new Transient({ mailer: "outbox", detail: `could not write the outbox: ${String(cause)}` })
        })
        return new SendReceipt({ mailer: "outbox", messageId: path, acceptedAt: yield* Clock.currentTimeMillis })
      })
  }
}

export const layerOutboxMailer = (directory: string) => Layer.succeed(Mailer, makeOutboxMailer(directory))
