import { Mailer, type MailerShape, Rejected, SendReceipt, Transient } from "@hookgate/core/mail"
import { Clock, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { link, mkdir, open, unlink } from "node:fs/promises"
import { join } from "node:path"
import { outboxFileName } from "./outbox-file-name.js"
import { buildOutboxMime, UnsafeHeader } from "./outbox-mime.js"

/**
 * A local outbox: each accepted email becomes an `.eml` file named after its
 * idempotency key (see `outboxFileName`). It does not honour keys, like a
 * plain SMTP relay: a second accepted send of one order is written beside the
 * first (`…~2.eml`), so a duplicate is visible as a collision instead of
 * silently overwriting.
 *
 * Writes are atomic: the message goes to a hidden temporary file, is flushed,
 * then linked to its `.eml` name (a link, unlike a rename, fails when the name
 * exists) and the temporary name removed. A process killed mid-write leaves at
 * most a `.tmp-…` file, never a partial `.eml`.
 */
const outboxMailer = (directory: string): MailerShape => {
  const writeTemporary = async (content: Buffer) => {
    const path = join(directory, `.tmp-${randomUUID()}`)
    const file = await open(path, "wx")
    try {
      await file.writeFile(content)
      await file.sync()
    } finally {
      await file.close()
    }
    return path
  }

  // Links the finished file under the first free name, then drops the temporary name.
  const publish = async (temporary: string, base: string): Promise<string> => {
    try {
      for (let n = 1; ; n++) {
        const path = join(directory, n === 1 ? `${base}.eml` : `${base}~${n}.eml`)
        try {
          await link(temporary, path)
          return path
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
        }
      }
    } finally {
      await unlink(temporary).catch(() => undefined)
    }
  }

  return {
    name: "outbox",
    honoursIdempotencyKeys: false,
    send: (email, { idempotencyKey }) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const raw = yield* Effect.tryPromise({
          try: () =>
            buildOutboxMime(email, {
              messageId: `<${randomUUID()}@outbox.hookgate.localhost>`,
              idempotencyKey,
              date: new Date(now)
            }),
          catch: (cause) =>
            new Rejected({
              mailer: "outbox",
              detail: cause instanceof UnsafeHeader ? `refused: ${cause.message}` : `cannot build this email: ${String(cause)}`
            })
        })
        const path = yield* Effect.tryPromise({
          try: async () => {
            await mkdir(directory, { recursive: true })
            return publish(await writeTemporary(raw), outboxFileName(idempotencyKey))
          },
          // No .eml was written: safe to retry.
          catch: (cause) => new Transient({ mailer: "outbox", detail: `could not write the outbox: ${String(cause)}` })
        })
        return new SendReceipt({ mailer: "outbox", messageId: path, acceptedAt: yield* Clock.currentTimeMillis })
      })
  }
}

/** The outbox mailer writing into `directory`. */
export const make = (directory: string): Effect.Effect<MailerShape> => Effect.sync(() => outboxMailer(directory))

/** The outbox mailer writing into `directory`, as the layer's `Mailer`. */
export const layer = (directory: string): Layer.Layer<Mailer> => Layer.succeed(Mailer, outboxMailer(directory))
