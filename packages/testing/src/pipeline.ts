import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import type { Lease, OrderStore, RetryPolicyOptions } from "@hookgate/core"
import type { AlertStore } from "@hookgate/core/alerts"
import type { MailerCircuitOptions } from "@hookgate/core/mail"
import type { WebhookProvider } from "@hookgate/core/providers"
import type { ScriptedMailerOptions } from "./scripted-mailer.js"

export interface TestPipelineOptions<E, R> {
  /** The store under test (memory, SQLite, D1, …). */
  readonly store: Layer.Layer<OrderStore | Lease | AlertStore, E, R>
  /** Providers mounted in the registry: effects building them (`TestProvider.make(…)`, `Stripe.make(…)`). */
  readonly providers: ReadonlyArray<Effect.Effect<WebhookProvider>>
  readonly mailer?: ScriptedMailerOptions
  readonly alerterFails?: boolean
  /** In-request retries run without delay unless given, so tests need not drive the clock through them. */
  readonly policy?: RetryPolicyOptions
  /** The mailer breaker's options (it probes every 30 s, doubling, by default). */
  readonly circuit?: MailerCircuitOptions
}

/** The typed failure of an effect that must fail, for asserting its tag and fields. */
export const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
    if (exit.cause._tag !== "Fail") throw new Error(`expected a typed failure, got ${exit.cause._tag}`)
    return exit.cause.error
  })
