import { Lease, OrderStore, StoreUnavailable } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { Clock, type Context, Effect, Layer } from "effect"

/**
 * The store's health as the gateway sees it: every call to the order store,
 * the lease and the alert store reports here. The first `StoreUnavailable`
 * after a success logs one WARN line with its cause (not one per request:
 * during an outage every webhook fails the same way); the first success after
 * it logs that the store is back. `/readyz` asks the store itself.
 */

/** One line of what went wrong underneath: a driver's messages down its cause chain, never a URL it was given. */
const causeOf = (error: StoreUnavailable): string => {
  const parts: Array<string> = []
  let cause: unknown = error.cause
  for (let depth = 0; depth < 4 && cause !== undefined && cause !== null; depth++) {
    const { code, errors, message } = cause as { message?: unknown; code?: unknown; errors?: unknown }
    // An AggregateError (one per address tried) has no message of its own: its first error says it.
    const first = Array.isArray(errors) && errors.length > 0 ? errors[0] as { message?: unknown } : undefined
    const text = typeof message === "string" && message !== "" ? message : typeof first?.message === "string" ? first.message : ""
    if (text !== "" && !parts.includes(text)) parts.push(`${text.split("\n")[0]}${typeof code === "string" && !text.includes(code) ? ` (${code})` : ""}`)
    cause = (cause as { cause?: unknown }).cause
  }
  return parts.length === 0 ? "unknown" : parts.join(": ").replace(/\w+:\/\/\S*/g, "<url>")
}

/** One outage at a time: `down` since the first failure, until the next success. */
export const makeOutageLog = () => {
  let downSince: number | undefined
  let failures = 0
  return {
    failed: (error: StoreUnavailable) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        failures++
        if (downSince !== undefined) return Effect.void
        downSince = now
        return Effect.logWarning("store unavailable").pipe(
          Effect.annotateLogs({ operation: error.operation, cause: causeOf(error) })
        )
      }),
    succeeded: Effect.suspend(() =>
      downSince === undefined ? Effect.void : Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (downSince === undefined) return Effect.void
        const outageMs = now - downSince
        const failedCalls = failures
        downSince = undefined
        failures = 0
        return Effect.logInfo("store available again").pipe(Effect.annotateLogs({ outageMs, failedCalls }))
      })
    )
  }
}

type OutageLog = ReturnType<typeof makeOutageLog>

const watched = <A, E, R>(log: OutageLog, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  effect.pipe(
    Effect.tapBoth({
      onFailure: (error) => error instanceof StoreUnavailable ? log.failed(error) : Effect.void,
      onSuccess: () => log.succeeded
    })
  )

/** Every method (a function answering an Effect) and every Effect property of a service, watched. */
const watchAll = <S extends object>(log: OutageLog, service: S): S =>
  Object.fromEntries(
    Object.entries(service).map(([name, member]) => [
      name,
      typeof member === "function"
        ? (...args: Array<unknown>) => {
          const result = (member as (...a: Array<unknown>) => unknown).apply(service, args)
          return Effect.isEffect(result) ? watched(log, result) : result
        }
        : Effect.isEffect(member)
        ? watched(log, member)
        : member
    ])
  ) as S

const rewatch = <I, S extends object>(tag: Context.Tag<I, S>, log: OutageLog) =>
  Layer.effect(tag, Effect.map(tag, (service) => watchAll(log, service)))

/** The order store, the lease and the alert store of `store`, reporting their outages to one log. */
export const withOutageLog = <A, E, R>(store: Layer.Layer<A, E, R>) => {
  const log = makeOutageLog()
  return Layer.mergeAll(rewatch(OrderStore, log), rewatch(Lease, log), rewatch(AlertStore, log)).pipe(
    Layer.provideMerge(store)
  )
}
