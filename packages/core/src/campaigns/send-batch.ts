import * as EpochMillis from "../kernel/EpochMillis.js"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type { CampaignBatchMessage, CampaignState, CampaignTemplate } from "./campaign.js"
import { headerProblem, type OutgoingEmail, type SendReceipt } from "../mail/email.js"
import { type MailerError, type Misconfigured, Unknown } from "../mail/errors.js"
import { MailerCircuit, type MailerCircuitShape } from "../mail/circuit.js"
import { closeCircuit, tripCircuit } from "../mail/circuit-actions.js"
import { leaseTerms, lost, owned, underLease } from "../kernel/lease-protocol.js"
import { sendWithPolicy } from "../mail/send-policy.js"
import { type StoreUnavailable } from "../kernel/store-errors.js"
import * as Metrics from "../observability/Metrics.js"
import { spanWhenTraced } from "../kernel/spans.js"
import type { Alert } from "../alerts/alert.js"
import { attemptAlert, newAlert, raiseAlert } from "../alerts/raise.js"
import { type BatchMember, CampaignStore, type MemberResult } from "./campaign-store.js"
import { Mailer, type MailerShape } from "../mail/mailer.js"
import { RetryPolicy, type RetryPolicyShape } from "../kernel/retry-policy.js"
import { campaignBatchKey, campaignRecipientKey } from "../mail/idempotency-key.js"
import { CampaignOptions } from "./options.js"
import { renderCampaignEmail } from "./render.js"

/** What one delivery of a batch message did. */
export type BatchOutcome = Data.TaggedEnum<{
  /** This delivery held the batch and recorded every member's result. */
  Sent: { readonly sent: number; readonly failed: number; readonly retry: number; readonly attempts: number }
  /** A redelivery: every member was already sent or failed; nothing was sent. */
  Done: { readonly members: number }
  /** Another delivery holds the batch until `until`. */
  InProgress: { readonly until: number }
  NotRunning: { readonly state: CampaignState }
  NotFound: {}
  /** The slot was never used and nobody is left to reserve. */
  Empty: {}
  /** Sent, but the batch's lease had been taken over: the new holder records it (under the same key). */
  LeaseLost: {}
  /**
   * The mailer is misconfigured (the `MailerCircuit` is open): nothing more was sent and no
   * attempt was counted; deliver the message again at the breaker's next probe, `nextProbeAt`.
   * `sent` recipients went out before the breaker opened (recorded).
   */
  Held: { readonly nextProbeAt: number; readonly sent: number }
}>
export const BatchOutcome = Data.taggedEnum<BatchOutcome>()

const describe = (error: MailerError) => error.message

const retry = (member: BatchMember, error: MailerError, solo: boolean): MemberResult => ({
  seq: member.seq,
  outcome: "retry",
  error: describe(error),
  uncertain: error._tag === "Unknown",
  solo,
  held: error._tag === "Misconfigured"
})

/** What sending a batch needs; `held` is set once the mailer answered `Misconfigured` during it. */
interface SendContext {
  readonly mailer: MailerShape
  readonly policy: RetryPolicyShape
  readonly concurrency: number
  readonly circuit: MailerCircuitShape
  held: { readonly error: Misconfigured; readonly nextProbeAt: number } | undefined
}

/** Every answer of the mailer goes through the breaker: an accepted send closes it, `Misconfigured` trips it. */
const throughCircuit = (context: SendContext) => <A>(send: Effect.Effect<A, MailerError>) =>
  send.pipe(
    Effect.tap(() => closeCircuit(context.circuit.close, context.mailer.name)),
    Effect.tapError((error) =>
      error._tag === "Misconfigured"
        ? Effect.map(tripCircuit(error), (nextProbeAt) => {
          context.held = { error, nextProbeAt }
        })
        : Effect.void
    )
  )

const sendEach = (
  campaignId: string,
  members: ReadonlyArray<BatchMember>,
  emails: ReadonlyArray<OutgoingEmail>,
  context: SendContext
) =>
  Effect.forEach(members, (member, i) =>
    Effect.suspend(() => {
      // A header-bound value with a line break fails its recipient before any mailer (see `headerProblem`).
      const problem = headerProblem(emails[i]!)
      if (problem !== undefined) return Effect.succeed<MemberResult>({ seq: member.seq, outcome: "failed", error: `Rejected: ${problem}` })
      // Once the mailer answered `Misconfigured`, the rest of the batch is held without calling it.
      return context.held !== undefined
        ? Effect.succeed(retry(member, context.held.error, true))
        : campaignRecipientKey(campaignId, member.email).pipe(
          Effect.flatMap((idempotencyKey) =>
            context.mailer.send(emails[i]!, { idempotencyKey }).pipe(sendWithPolicy(context.policy, context.mailer))
          ),
          throughCircuit(context),
          Effect.match({
            onSuccess: (receipt): MemberResult => ({ seq: member.seq, outcome: "sent", messageId: receipt.messageId }),
            onFailure: (error): MemberResult =>
              error._tag === "Rejected"
                ? { seq: member.seq, outcome: "failed", error: describe(error) }
                : retry(member, error, true)
          })
        )
    }), { concurrency: context.concurrency })

/**
 * Sends a leased batch: through `sendBatch` under the batch's key when the
 * mailer has it, else (or once a batch send was rejected) one recipient at a
 * time under per-recipient keys. Never fails: every member gets a result.
 */
const sendMembers = (
  message: CampaignBatchMessage,
  template: CampaignTemplate,
  members: ReadonlyArray<BatchMember>,
  context: SendContext
) =>
  Effect.gen(function*() {
    const { mailer, policy } = context
    const emails = members.map((member) => renderCampaignEmail(template, member))
    const sendBatch = mailer.sendBatch
    if (sendBatch === undefined || members.some((member) => member.solo) || emails.some((email) => headerProblem(email) !== undefined)) {
      return yield* sendEach(message.campaignId, members, emails, context)
    }
    const idempotencyKey = yield* campaignBatchKey(message.campaignId, message.batch)
    const batch = yield* Effect.either(
      sendBatch(emails, { idempotencyKey }).pipe(
        sendWithPolicy(policy, mailer),
        throughCircuit(context)
      )
    )
    if (batch._tag === "Right") {
      const receipts: ReadonlyArray<SendReceipt> = batch.right
      return members.map((member, i): MemberResult => ({ seq: member.seq, outcome: "sent", messageId: receipts[i]?.messageId }))
    }
    const accepted = batch.left._tag === "Rejected" ? batch.left.accepted : undefined
    if (accepted !== undefined && accepted.length === members.length) {
      // Accepted in part: what went out is sent; only the refused go again, one by one, and fail alone.
      yield* Effect.logWarning("a campaign batch was accepted in part; sending the refused recipients one at a time", batch.left)
      const refused = members.flatMap((_, i) => accepted[i] === undefined ? [i] : [])
      const again = yield* sendEach(message.campaignId, refused.map((i) => members[i]!), refused.map((i) => emails[i]!), context)
      const resent = new Map(refused.map((i, j) => [i, again[j]!]))
      return members.map((member, i): MemberResult =>
        resent.get(i) ?? { seq: member.seq, outcome: "sent", messageId: accepted[i]?.messageId }
      )
    }
    // A rejected batch sent nothing (Resend validates a batch whole): one by one, the bad address fails alone.
    if (batch.left._tag === "Rejected") {
      yield* Effect.logWarning("a campaign batch was rejected; sending it one recipient at a time", batch.left)
      return yield* sendEach(message.campaignId, members, emails, context)
    }
    return members.map((member) => retry(member, batch.left, false))
  }).pipe(spanWhenTraced("campaign.send", { campaignId: message.campaignId, batch: message.batch, size: members.length }))

/**
 * At the cap a retry becomes a failure, unless the mailer was misconfigured (the
 * account's fault, not the recipient's): that one is retried until it is fixed.
 */
const capped = (members: ReadonlyArray<BatchMember>, results: ReadonlyArray<MemberResult>, maxAttempts: number) => {
  const attempts = new Map(members.map((m) => [m.seq, m.attempts]))
  return results.map((result): MemberResult =>
    result.outcome === "retry" && result.held !== true && (attempts.get(result.seq) ?? 0) + 1 >= maxAttempts
      ? { ...result, outcome: "failed", error: `gave up after ${maxAttempts} attempts: ${result.error ?? ""}` }
      : result
  )
}

/**
 * The alerts a batch's record stores with it, in the same atomic step: the capped or
 * failed recipients, and those sent after an uncertain attempt by a mailer that ignores
 * keys. Each id names the lease token: every record that applies reports what it did.
 */
const alertsFor = (
  message: CampaignBatchMessage,
  token: string,
  members: ReadonlyArray<BatchMember>,
  results: ReadonlyArray<MemberResult>,
  context: { readonly mailer: MailerShape; readonly capped: number; readonly maxAttempts: number; readonly now: number }
): ReadonlyArray<Alert> => {
  const { batch, campaignId } = message
  const { now } = context
  const alerts: Array<Alert> = []
  const failed = results.filter((r) => r.outcome === "failed")
  if (context.capped > 0) {
    alerts.push(newAlert({
      id: `capped:campaign:${campaignId}:${batch}:${token}`,
      kind: "capped",
      orderKey: null,
      message: `campaign ${campaignId}, batch ${batch}: ${context.capped} recipient(s) reached the cap of ` +
        `${context.maxAttempts} attempts and will not get the email; last error: ${failed[0]?.error ?? "unknown"}`
    }, now))
  } else if (failed.length > 0) {
    alerts.push(newAlert({
      id: `failed:campaign:${campaignId}:${batch}:${token}`,
      kind: "failed",
      orderKey: null,
      message: `campaign ${campaignId}, batch ${batch}: ${failed.length} recipient(s) will not get the email; ` +
        `first error: ${failed[0]!.error ?? "unknown"}`
    }, now))
  }
  const uncertain = new Set(members.filter((m) => m.uncertain).map((m) => m.seq))
  const doubtful = results.filter((r) => r.outcome === "sent" && uncertain.has(r.seq)).length
  if (doubtful > 0 && !context.mailer.honoursIdempotencyKeys) {
    alerts.push(newAlert({
      id: `possible_duplicate:campaign:${campaignId}:${batch}:${token}`,
      kind: "possible_duplicate",
      orderKey: null,
      message: `campaign ${campaignId}, batch ${batch}: ${doubtful} recipient(s) were sent after an uncertain attempt ` +
        `by a mailer that ignores idempotency keys: they may have two emails`
    }, now))
  }
  return alerts
}

const notePrevented = (campaignId: string, members: number) =>
  Effect.gen(function*() {
    const store = yield* CampaignStore
    const options = yield* CampaignOptions
    const total = yield* store.notePrevented(campaignId, members)
    yield* Metrics.campaignDuplicatesPrevented(members)
    if (total >= options.duplicatesAlertThreshold) {
      const now = yield* EpochMillis.now
      const day = new Date(now).toISOString().slice(0, 10)
      yield* raiseAlert(newAlert({
        id: `duplicates_spike:campaign:${campaignId}:${day}`,
        kind: "duplicates_spike",
        orderKey: null,
        message: `campaign ${campaignId}: ${total} recipient(s) of redelivered batches were stopped from getting the email twice; ` +
          "the queue is redelivering batches (consumers timing out before they acknowledge?)"
      }, now))
    }
  })

/**
 * One delivery of a batch message: lease the batch (reserving it on first
 * sight), send it, record each member's result under the lease token. Two
 * statements on the happy path. A batch whose lease expired (its sender died
 * or timed out) is sent again under the same key, never skipped.
 */
export const sendCampaignBatch = (
  message: CampaignBatchMessage,
  templateOf: (campaignId: string) => Effect.Effect<Option.Option<CampaignTemplate>, StoreUnavailable>
) =>
  Effect.gen(function*() {
    const store = yield* CampaignStore
    const mailer = yield* Mailer
    const policy = yield* RetryPolicy
    const options = yield* CampaignOptions
    const circuit = yield* MailerCircuit
    // A misconfigured mailer: the batch is not even leased (nothing written, nothing counted).
    // Admitted, this delivery may be the breaker's probe.
    const admitted = yield* circuit.admit
    if (Option.isSome(admitted)) return BatchOutcome.Held({ nextProbeAt: admitted.value.nextProbeAt, sent: 0 })
    const terms = yield* leaseTerms()
    const { token } = terms
    const { batch, campaignId } = message
    const reservation = yield* store.reserve(campaignId, batch, { ...terms, size: options.batchSize })
    switch (reservation._tag) {
      case "Done":
        yield* notePrevented(campaignId, reservation.members)
        return BatchOutcome.Done({ members: reservation.members })
      case "InProgress":
        return BatchOutcome.InProgress({ until: reservation.until })
      case "NotRunning":
        return BatchOutcome.NotRunning({ state: reservation.state })
      case "NotFound":
        return BatchOutcome.NotFound()
      case "Empty":
        return BatchOutcome.Empty()
    }
    const members = [...reservation.members].sort((a, b) => a.seq - b.seq)
    const template = yield* templateOf(campaignId)
    if (Option.isNone(template)) return yield* Effect.dieMessage(`campaign ${campaignId} has rows but no template`)
    const context: SendContext = { mailer, policy, concurrency: options.perRecipientConcurrency, circuit, held: undefined }

    return yield* underLease(sendMembers(message, template.value, members, context), (exit) =>
      Effect.gen(function*() {
        const attempted = Exit.isSuccess(exit) ? exit.value : members.map((member) =>
          retry(member, new Unknown({ mailer: mailer.name, detail: Cause.isInterruptedOnly(exit.cause) ? "interrupted" : "died" }), false)
        )
        const results = capped(members, attempted, policy.maxAttempts)
        const now = yield* EpochMillis.now
        const cappedCount = results.filter((r, i) => r.outcome === "failed" && attempted[i]?.outcome === "retry").length
        const alerts = alertsFor(message, token, members, results, { mailer, capped: cappedCount, maxAttempts: policy.maxAttempts, now })
        // The alerts are stored with the results, in one atomic step; attempted once both are.
        const written = yield* store.record(campaignId, batch, token, results, now, alerts).pipe(
          Effect.tapError((error) => Effect.logError("a campaign batch was sent but its results could not be recorded", error))
        )
        const count = (outcome: MemberResult["outcome"]) => results.filter((r) => r.outcome === outcome).length
        yield* Metrics.campaignRecipients("sent", count("sent"))
        yield* Metrics.campaignRecipients("failed", count("failed"))
        yield* Metrics.campaignRecipients("retry", count("retry"))
        if (written === 0) return lost<BatchOutcome>(BatchOutcome.LeaseLost())
        if (alerts.some((alert) => alert.kind === "possible_duplicate")) yield* Metrics.possibleDuplicate
        yield* Effect.forEach(alerts, attemptAlert, { discard: true })
        if (context.held !== undefined) return owned<BatchOutcome>(BatchOutcome.Held({ nextProbeAt: context.held.nextProbeAt, sent: count("sent") }))
        return owned<BatchOutcome>(BatchOutcome.Sent({
          sent: count("sent"),
          failed: count("failed"),
          retry: count("retry"),
          attempts: Math.max(1, ...members.map((m) => m.attempts + 1))
        }))
      }), { what: "a campaign batch", annotations: { campaignId, batch } })
  }).pipe(
    Effect.tap((outcome) => Metrics.campaignBatch(outcomeName(outcome))),
    spanWhenTraced("campaign.batch", { campaignId: message.campaignId, batch: message.batch })
  )

const outcomeName = (outcome: BatchOutcome) =>
  outcome._tag === "Sent"
    ? (outcome.retry > 0 ? "retry" : "sent")
    : outcome._tag.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? c.toLowerCase() : `_${c.toLowerCase()}`))
