import {
  type MailerShape,
  type OutgoingEmail,
  Rejected,
  SendReceipt,
  Transient,
  Unknown
} from "@hookgate/core/mail"
import { Clock, Duration, Effect } from "effect"
import { awaitPoint, type FaultCounts, type FaultRates } from "./faults.js"
import type { Rng } from "./rng.js"

/** Resend's idempotency window: a key used again after it is a fresh send. */
export const RESEND_KEY_WINDOW = Duration.hours(24)

/** What reached the buyers: emails per recipient address. */
export interface Inbox {
  readonly emails: Map<string, number>
  /** Addresses the mailer refuses, chosen once per address. */
  readonly refused: Map<string, boolean>
}

export const makeInbox = (): Inbox => ({ emails: new Map(), refused: new Map() })

/**
 * The mailer model: Resend-like when `honoursKeys` (a key repeated inside its
 * window answers the first receipt and sends nothing), Cloudflare-Email-like
 * when not. Its calls are await points of the process that makes them.
 */
export const makeSimulatedMailer = (
  options: { readonly honoursKeys: boolean; readonly leaseFor: Duration.Duration },
  inbox: Inbox,
  rng: Rng,
  rates: FaultRates,
  counts: FaultCounts
): MailerShape => {
  const name = options.honoursKeys ? "resend-model" : "plain-model"
  const firstUse = new Map<string, number>()
  let sequence = 0

  /** The provider's side: delivers, unless the key is honoured and fresh. */
  const accept = (emails: ReadonlyArray<OutgoingEmail>, key: string, now: number) => {
    const first = firstUse.get(key)
    const fresh = first === undefined || now - first >= Duration.toMillis(RESEND_KEY_WINDOW)
    if (fresh) firstUse.set(key, now)
    if (!options.honoursKeys || fresh) {
      for (const email of emails) inbox.emails.set(email.to, (inbox.emails.get(email.to) ?? 0) + 1)
    }
    return emails.map(() => new SendReceipt({ mailer: name, messageId: `${name}-${++sequence}`, acceptedAt: now }))
  }

  const call = (emails: ReadonlyArray<OutgoingEmail>, key: string) =>
    Effect.gen(function*() {
      yield* awaitPoint(rng, rates, counts)
      if (rng.chance(rates.transient)) return yield* new Transient({ mailer: name, detail: "503" })
      if (rng.chance(rates.rateLimited)) {
        return yield* new Transient({ mailer: name, detail: "429", retryAfter: Duration.seconds(rng.int(1, 60)) })
      }
      for (const email of emails) {
        if (!inbox.refused.has(email.to)) inbox.refused.set(email.to, rng.chance(rates.rejected))
        if (inbox.refused.get(email.to)) return yield* new Rejected({ mailer: name, detail: "invalid recipient" })
      }
      const receipts = accept(emails, key, yield* Clock.currentTimeMillis)
      if (rng.chance(rates.acceptedThenUnknown)) return yield* new Unknown({ mailer: name, detail: "connection reset" })
      // Accepted, but the answer comes after the lease expired (a stalled connection, a paused process).
      if (rng.chance(rates.slow)) yield* Effect.sleep(Duration.sum(options.leaseFor, Duration.minutes(1)))
      return receipts
    })

  return {
    name,
    honoursIdempotencyKeys: options.honoursKeys,
    ...(options.honoursKeys ? { idempotencyKeyWindow: RESEND_KEY_WINDOW } : {}),
    // Declared, so the pipeline runs no timer of its own: a slow answer can outlive the lease.
    callTimeout: Duration.seconds(30),
    send: (email, { idempotencyKey }) => Effect.map(call([email], idempotencyKey), (receipts) => receipts[0]!),
    sendBatch: (emails, { idempotencyKey }) => call(emails, idempotencyKey)
  }
}
