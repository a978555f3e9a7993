import { type LeaseShape, type OrderStoreShape, StoreUnavailable } from "@hookgate/core"
import { type CampaignStoreShape } from "@hookgate/core/campaigns"
import type { MessageLedgerShape } from "@hookgate/core/queue"
import { Clock, Effect, FiberRef } from "effect"
import type { Rng } from "./rng.js"

/** Fault rates, each a probability per opportunity. */
export interface FaultRates {
  /** A mailer call fails with a 5xx (nothing sent). */
  readonly transient: number
  /** A mailer call answers 429 with a `retry-after` of 1 to 60 s. */
  readonly rateLimited: number
  /** An order's address is refused by the mailer, every time. */
  readonly rejected: number
  /** The mailer accepts, then the answer is lost. */
  readonly acceptedThenUnknown: number
  /** The mailer accepts, and answers only after the lease has expired. */
  readonly slow: number
  /** The `sent` marker write fails. */
  readonly markerFails: number
  /** Any other store call fails (StoreUnavailable). */
  readonly storeUnavailable: number
  /** The process dies before a store or mailer call (every await point of the pipeline). */
  readonly crash: number
  /** Each sender's clock is off by up to this many ms (either way). */
  readonly skewMs: number
  /** An order's webhook never reaches hookgate (every delivery of it is lost): only reconciliation can find it. */
  readonly neverDelivered: number
}

export const defaultRates: FaultRates = {
  transient: 0.02,
  rateLimited: 0.01,
  rejected: 0.001,
  acceptedThenUnknown: 0.01,
  slow: 0.005,
  markerFails: 0.005,
  storeUnavailable: 0.002,
  crash: 0.005,
  skewMs: 2_000,
  neverDelivered: 0
}

/** One simulated process (a webhook request, a sweep, a queue delivery): once dead, it does nothing more. */
interface ProcessState {
  crashed: boolean
}
const currentProcess = FiberRef.unsafeMake<ProcessState | null>(null)

/** Runs `effect` as its own process, on a clock skewed by `skewMs`. */
export const asProcess = <A, E, R>(effect: Effect.Effect<A, E, R>, skewMs = 0) =>
  Effect.flatMap(Effect.clock, (clock) =>
    effect.pipe(
      Effect.withClock(skewMs === 0 ? clock : skewed(clock, skewMs)),
      Effect.locally(currentProcess, { crashed: false })
    ))

const skewed = (clock: Clock.Clock, offset: number): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => clock.unsafeCurrentTimeMillis() + offset,
  currentTimeMillis: Effect.map(clock.currentTimeMillis, (t) => t + offset),
  unsafeCurrentTimeNanos: () => clock.unsafeCurrentTimeNanos() + BigInt(offset) * 1_000_000n,
  currentTimeNanos: Effect.map(clock.currentTimeNanos, (t) => t + BigInt(offset) * 1_000_000n),
  sleep: (duration) => clock.sleep(duration)
})

/** Counts of what the fault injection did. */
export interface FaultCounts {
  crashes: number
  storeFailures: number
  markerFailures: number
  /** `complete` or `release` calls that changed an order under a token that no longer held its lease. */
  staleWrites: number
  /** Simulated requests that died of a defect (a bug, in the pipeline or the simulation): must stay 0. */
  defects: number
}

export const noFaults = (): FaultCounts => ({ crashes: 0, storeFailures: 0, markerFailures: 0, staleWrites: 0, defects: 0 })

export const addFaults = (a: FaultCounts, b: FaultCounts): FaultCounts => ({
  crashes: a.crashes + b.crashes,
  storeFailures: a.storeFailures + b.storeFailures,
  markerFailures: a.markerFailures + b.markerFailures,
  staleWrites: a.staleWrites + b.staleWrites,
  defects: a.defects + b.defects
})

/**
 * An await point: a dead process goes no further (interrupted, so no later
 * step of it, even an uninterruptible one, reaches the store or the mailer);
 * a live one may die here.
 */
export const awaitPoint = (rng: Rng, rates: FaultRates, counts: FaultCounts) =>
  Effect.flatMap(FiberRef.get(currentProcess), (process) => {
    if (process === null) return Effect.void
    if (process.crashed) return Effect.interrupt
    if (rng.chance(rates.crash)) {
      process.crashed = true
      counts.crashes++
      return Effect.interrupt
    }
    return Effect.void
  })

type Fn = (...args: Array<any>) => Effect.Effect<any, any, never>

/** Wraps every method: an await point, then maybe a StoreUnavailable, then the call. */
const wrapAll = <S extends object>(
  service: S,
  fault: (name: string) => number,
  rng: Rng,
  rates: FaultRates,
  counts: FaultCounts
): S => {
  const wrapped: Record<string, unknown> = {}
  for (const [name, member] of Object.entries(service)) {
    if (typeof member !== "function") {
      wrapped[name] = Effect.isEffect(member)
        ? Effect.zipRight(awaitPoint(rng, rates, counts), member as Effect.Effect<unknown>)
        : member
      continue
    }
    wrapped[name] = (...args: Array<unknown>) =>
      Effect.zipRight(
        awaitPoint(rng, rates, counts),
        Effect.suspend(() => {
          if (rng.chance(fault(name))) {
            if (name === "complete") counts.markerFailures++
            else counts.storeFailures++
            return Effect.fail(new StoreUnavailable({ operation: `${name} (simulated)` }))
          }
          return (member as Fn)(...args)
        })
      )
  }
  return wrapped as S
}

/** Counts the writes that applied under a token that was not the lease holder's when the call was made. */
const observingStaleWrites = (store: OrderStoreShape, lease: LeaseShape, counts: FaultCounts): LeaseShape => {
  const observed = <A>(key: string, token: string, write: Effect.Effect<A, StoreUnavailable>, applied: (a: A) => boolean) =>
    Effect.gen(function*() {
      const before = yield* store.get(key)
      const result = yield* write
      if (applied(result) && (before._tag === "None" || before.value.leaseToken !== token)) counts.staleWrites++
      return result
    })
  return {
    ...lease,
    complete: (key, token, receipt, options) =>
      observed(key, token, lease.complete(key, token, receipt, options), (result) => result._tag === "Some"),
    release: (key, token, failure) => observed(key, token, lease.release(key, token, failure), (applied) => applied)
  }
}

/** The order store and lease with crashes, outages and failed marker writes. */
export const faultyOrderStore = (
  store: OrderStoreShape,
  lease: LeaseShape,
  rng: Rng,
  rates: FaultRates,
  counts: FaultCounts
) => ({
  store: wrapAll(store, () => rates.storeUnavailable, rng, rates, counts),
  lease: wrapAll(observingStaleWrites(store, lease, counts), (name) => (name === "complete" ? rates.markerFails : rates.storeUnavailable), rng, rates, counts)
})

/** The message ledger of `Consumer.once` with crashes and outages (a failed `complete` is the unrecorded-completion window). */
export const faultyMessageLedger = (ledger: MessageLedgerShape, rng: Rng, rates: FaultRates, counts: FaultCounts) =>
  wrapAll(ledger, (name) => (name === "complete" ? rates.markerFails : rates.storeUnavailable), rng, rates, counts)

/** The campaign ledger with crashes and outages. */
export const faultyCampaignStore = (store: CampaignStoreShape, rng: Rng, rates: FaultRates, counts: FaultCounts) =>
  wrapAll(store, (name) => (name === "record" || name === "reserve" ? rates.storeUnavailable : 0), rng, rates, counts)
