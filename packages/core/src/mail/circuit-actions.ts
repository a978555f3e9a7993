import * as Effect from "effect/Effect"
import { newAlert, raiseAlert } from "../alerts/raise.js"
import * as EpochMillis from "../kernel/EpochMillis.js"
import { MailerCircuit } from "./circuit.js"
import type { Misconfigured } from "./errors.js"

/**
 * What every sender does with the breaker's answers (orders and campaign batches
 * alike): an accepted send closes it, a `Misconfigured` answer trips it.
 */

/** After an accepted send: closes the breaker, and says so when it was open. */
export const closeCircuit = (close: Effect.Effect<boolean>, mailer: string) =>
  Effect.flatMap(close, (wasOpen) =>
    wasOpen
      ? Effect.logWarning("the mailer accepts sends again: held orders go out with the sweep").pipe(
        Effect.annotateLogs({ mailer })
      )
      : Effect.void)

/**
 * A `Misconfigured` answer: the account, not the order, is at fault. The breaker
 * opens; the owner hears of it through a log at ERROR and a stored alert (which
 * the email alerter refuses: it would go through this very mailer). Campaign batches
 * trip it the same way.
 */
export const tripCircuit = (error: Misconfigured) =>
  Effect.gen(function*() {
    const circuit = yield* MailerCircuit
    const tripped = yield* circuit.trip(error)
    if (tripped.opened) {
      const now = yield* EpochMillis.now
      yield* Effect.logError("the mailer is misconfigured: sending stops until a probe succeeds").pipe(
        Effect.annotateLogs({
          mailer: error.mailer,
          errorClass: error._tag,
          code: error.code,
          detail: error.detail,
          nextProbeAt: new Date(tripped.nextProbeAt).toISOString()
        })
      )
      const day = new Date(now).toISOString().slice(0, 10)
      yield* raiseAlert(newAlert({
        id: `mailer_misconfigured:${error.mailer}:${error.code}:${day}`,
        kind: "mailer_misconfigured",
        orderKey: null,
        message: `${error.message}. Orders are held (not counted) and sent once a probe succeeds; ` +
          "fix the mailer's settings (API key, sending domain, base URL)"
      }, now))
    }
    return tripped.nextProbeAt
  })
