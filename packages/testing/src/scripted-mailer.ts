import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { Mailer, type MailerError, type MailerShape, Misconfigured, type OutgoingEmail, Rejected, SendReceipt, Transient, Unknown } from "@hookgate/core/mail"

/** What the scripted mailer does on one call. */
export type MailerStep = Data.TaggedEnum<{
  Succeed: {}
  Transient: { readonly retryAfter?: Duration.DurationInput; readonly alert?: boolean }
  Rejected: { readonly detail: string }
  /** The account is misconfigured (a revoked key, an unverified domain): nothing is sent. */
  Misconfigured: { readonly code: string }
  /** The provider accepted the email (the buyer gets it), then the answer was lost. */
  AcceptedThenUnknown: {}
  /** Waits (on Effect's Clock, so TestClock drives it), then behaves as `then`. */
  Slow: { readonly duration: Duration.DurationInput; readonly then: MailerStep }
}>
export const Step = Data.taggedEnum<MailerStep>()

/** An email that reached the buyer's inbox, with the key it was sent under. */
export interface DeliveredEmail {
  readonly email: OutgoingEmail
  readonly idempotencyKey: string
  readonly messageId: string
}

export interface ScriptedMailerShape extends MailerShape {
  /** Emails the "provider" delivered: a repeated key is not delivered again when keys are honoured. */
  readonly delivered: Effect.Effect<ReadonlyArray<DeliveredEmail>>
  /** Every call, in order, with its key. */
  readonly calls: Effect.Effect<ReadonlyArray<{ readonly idempotencyKey: string; readonly to: string }>>
  /** Appends steps to the script. */
  readonly push: (...steps: ReadonlyArray<MailerStep>) => Effect.Effect<void>
}

export interface ScriptedMailerOptions {
  readonly name?: string
  /** Default true: a repeated key answers the first receipt and delivers nothing new. */
  readonly honoursIdempotencyKeys?: boolean
  /** One step per call, in order; after the script runs out, `otherwise` (default: succeed). */
  readonly script?: ReadonlyArray<MailerStep>
  readonly otherwise?: MailerStep
  /** Also offer `sendBatch` (one step per batch call; a repeated batch key answers the first receipts). */
  readonly batch?: boolean
}

/** A mailer whose every call is scripted, with fault injection, counting what it delivered. */
const scriptedMailer = (options: ScriptedMailerOptions) =>
  Effect.gen(function*() {
    const name = options.name ?? "scripted"
    const honours = options.honoursIdempotencyKeys ?? true
    const script = yield* Ref.make<ReadonlyArray<MailerStep>>(options.script ?? [])
    const delivered = yield* Ref.make<ReadonlyArray<DeliveredEmail>>([])
    const calls = yield* Ref.make<ReadonlyArray<{ idempotencyKey: string; to: string }>>([])
    const byKey = new Map<string, SendReceipt>()
    let sequence = 0

    const accept = (email: OutgoingEmail, idempotencyKey: string) =>
      Effect.gen(function*() {
        const earlier = byKey.get(idempotencyKey)
        if (honours && earlier) return earlier
        const messageId = `${name}-${++sequence}`
        const receipt = new SendReceipt({ mailer: name, messageId, acceptedAt: yield* Effect.clockWith((c) => c.currentTimeMillis) })
        if (!earlier) byKey.set(idempotencyKey, receipt)
        yield* Ref.update(delivered, (list) => [...list, { email, idempotencyKey, messageId }])
        return receipt
      })

    const run = (step: MailerStep, email: OutgoingEmail, key: string): Effect.Effect<SendReceipt, MailerError> =>
      Step.$match(step, {
        Succeed: () => accept(email, key),
        Transient: ({ alert, retryAfter }) =>
          Effect.fail(
            new Transient({
              mailer: name,
              detail: "scripted transient failure",
              ...(retryAfter === undefined ? {} : { retryAfter: Duration.decode(retryAfter) }),
              ...(alert === undefined ? {} : { alert })
            })
          ),
        Rejected: ({ detail }) => Effect.fail(new Rejected({ mailer: name, detail })),
        Misconfigured: ({ code }) =>
          Effect.fail(new Misconfigured({ mailer: name, code, detail: "scripted account error" })),
        AcceptedThenUnknown: () =>
          Effect.zipRight(accept(email, key), Effect.fail(new Unknown({ mailer: name, detail: "connection dropped" }))),
        Slow: ({ duration, then }) => Effect.zipRight(Effect.sleep(duration), run(then, email, key))
      })

    const batchByKey = new Map<string, ReadonlyArray<SendReceipt>>()
    const acceptBatch = (emails: ReadonlyArray<OutgoingEmail>, idempotencyKey: string) =>
      Effect.gen(function*() {
        const earlier = batchByKey.get(idempotencyKey)
        if (honours && earlier) return earlier
        const receipts: Array<SendReceipt> = []
        for (const email of emails) {
          const messageId = `${name}-${++sequence}`
          receipts.push(new SendReceipt({ mailer: name, messageId, acceptedAt: yield* Effect.clockWith((c) => c.currentTimeMillis) }))
          yield* Ref.update(delivered, (list) => [...list, { email, idempotencyKey, messageId }])
        }
        if (!earlier) batchByKey.set(idempotencyKey, receipts)
        return receipts as ReadonlyArray<SendReceipt>
      })
    const runBatch = (
      step: MailerStep,
      emails: ReadonlyArray<OutgoingEmail>,
      key: string
    ): Effect.Effect<ReadonlyArray<SendReceipt>, MailerError> =>
      step._tag === "Succeed"
        ? acceptBatch(emails, key)
        : step._tag === "AcceptedThenUnknown"
        ? Effect.zipRight(acceptBatch(emails, key), Effect.fail(new Unknown({ mailer: name, detail: "connection dropped" })))
        : step._tag === "Slow"
        ? Effect.zipRight(Effect.sleep(step.duration), runBatch(step.then, emails, key))
        : Effect.flatMap(run(step, emails[0]!, key), () => Effect.dieMessage("unreachable"))

    const nextStep = Ref.modify(script, (steps) =>
      steps.length > 0 ? [steps[0]!, steps.slice(1)] : [options.otherwise ?? Step.Succeed(), steps])

    const mailer: ScriptedMailerShape = {
      name,
      honoursIdempotencyKeys: honours,
      send: (email, { idempotencyKey }) =>
        Effect.gen(function*() {
          yield* Ref.update(calls, (list) => [...list, { idempotencyKey, to: email.to }])
          const step = yield* Ref.modify(script, (steps) =>
            steps.length > 0 ? [steps[0]!, steps.slice(1)] : [options.otherwise ?? Step.Succeed(), steps])
          return yield* run(step, email, idempotencyKey)
        }),
      ...(options.batch === true
        ? {
          sendBatch: (emails, { idempotencyKey }) =>
            Effect.gen(function*() {
              yield* Ref.update(calls, (list) => [...list, ...emails.map((email) => ({ idempotencyKey, to: email.to }))])
              return yield* runBatch(yield* nextStep, emails, idempotencyKey)
            })
        }
        : {}),
      delivered: Ref.get(delivered),
      calls: Ref.get(calls),
      push: (...steps) => Ref.update(script, (current) => [...current, ...steps])
    }
    return mailer
  })

/** The scripted mailer, to read back what it delivered in a test. */
export class ScriptedMailer extends Context.Tag("@hookgate/testing/ScriptedMailer")<
  ScriptedMailer,
  ScriptedMailerShape
>() {
  /** A scripted mailer, to use as a `Mailer` of its own (`Layer.effect(Mailer, ScriptedMailer.make())`). */
  static make(options: ScriptedMailerOptions = {}): Effect.Effect<ScriptedMailerShape> {
    return scriptedMailer(options)
  }

  /** Provides both `Mailer` and `ScriptedMailer` (the same instance). */
  static layer(options: ScriptedMailerOptions = {}): Layer.Layer<Mailer | ScriptedMailer> {
    return Layer.effectContext(
      Effect.map(scriptedMailer(options), (mailer) =>
        Context.make(ScriptedMailer, mailer).pipe(Context.add(Mailer, mailer)))
    )
  }
}
