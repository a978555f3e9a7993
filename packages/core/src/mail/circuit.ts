import * as EpochMillis from "../kernel/EpochMillis.js"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleIntervals from "effect/ScheduleIntervals"
import type { Misconfigured } from "./errors.js"

/** The breaker's state: closed (sending), or open since a `Misconfigured` answer. */
export type CircuitState =
  | { readonly _tag: "Closed" }
  | {
    readonly _tag: "Open"
    readonly error: Misconfigured
    readonly openedAt: number
    /** When the next send may go through, as a probe. */
    readonly nextProbeAt: number
    /** The probe schedule's own state. */
    readonly scheduleState: unknown
  }

/** A send the breaker holds back: the mailer is misconfigured, the next probe is at `nextProbeAt`. */
export interface Held {
  readonly error: Misconfigured
  readonly nextProbeAt: number
}

/** What `/healthz` and `/admin/stats` say of the mailer. */
export type CircuitStatus =
  | { readonly mailer: "ok" }
  | {
    readonly mailer: "misconfigured"
    readonly errorClass: "Misconfigured"
    readonly code: string
    readonly detail: string
    readonly since: string
    readonly nextProbeAt: string
  }

export interface MailerCircuitShape {
  /**
   * Asked before a send. `None`: the mailer may be used now (closed, or open with
   * its probe due: this caller takes the probe and the next one is scheduled).
   * `Some`: held back until `nextProbeAt`.
   */
  readonly admit: Effect.Effect<Option.Option<Held>>
  /** After a `Misconfigured` answer: opens the breaker (or keeps it open). `opened` on the transition. */
  readonly trip: (error: Misconfigured) => Effect.Effect<{ readonly nextProbeAt: number; readonly opened: boolean }>
  /** After an accepted send: closes the breaker. True when it was open. */
  readonly close: Effect.Effect<boolean>
  /** The breaker open and its probe not yet due (the sweep skips then). */
  readonly holding: Effect.Effect<boolean>
  readonly status: Effect.Effect<CircuitStatus>
}

/** Options of `MailerCircuit.layer`. */
export interface MailerCircuitOptions {
  /**
   * When to probe a misconfigured mailer again, from the moment it opened: the
   * delays of this schedule (default: 30 seconds, doubling, at most 10 minutes).
   */
  readonly probeEvery?: Schedule.Schedule<unknown, unknown>
}

/** The default probe cadence: 30 s, 1 min, 2 min, … capped at 10 minutes. */
export const defaultProbeSchedule: Schedule.Schedule<unknown, unknown> = Schedule.exponential("30 seconds").pipe(
  Schedule.union(Schedule.spaced("10 minutes"))
)

/** The probe after `now` on `schedule` from `state`: its time and the schedule's next state. */
const nextProbe = (schedule: Schedule.Schedule<unknown, unknown>, now: number, state: unknown) =>
  Effect.map(schedule.step(now, undefined, state), ([next, , decision]) =>
    ScheduleDecision.isDone(decision)
      // A finite schedule that ran out: start it again rather than never probing.
      ? { at: now + Duration.toMillis("10 minutes"), state: schedule.initial }
      : { at: Math.max(now, Math.ceil(ScheduleIntervals.start(decision.intervals))), state: next as unknown })

const statusOf = (state: CircuitState): CircuitStatus =>
  state._tag === "Closed"
    ? { mailer: "ok" }
    : {
      mailer: "misconfigured",
      errorClass: "Misconfigured",
      code: state.error.code,
      detail: state.error.detail,
      since: new Date(state.openedAt).toISOString(),
      nextProbeAt: new Date(state.nextProbeAt).toISOString()
    }

/** A circuit breaker over the mailer, its state in a `Ref`, its time from `Clock`. */
export const make = (options: MailerCircuitOptions = {}): Effect.Effect<MailerCircuitShape> =>
  Effect.map(Ref.make<CircuitState>({ _tag: "Closed" }), (ref) => {
    const schedule = options.probeEvery ?? defaultProbeSchedule
    const admit = Effect.flatMap(EpochMillis.now, (now) =>
      Effect.flatMap(Ref.get(ref), (state) => {
        if (state._tag === "Closed") return Effect.succeedNone
        if (now < state.nextProbeAt) {
          return Effect.succeedSome<Held>({ error: state.error, nextProbeAt: state.nextProbeAt })
        }
        // This caller probes; everyone else waits for the probe after it.
        return Effect.flatMap(nextProbe(schedule, now, state.scheduleState), (probe) =>
          Ref.modify(ref, (current): [Option.Option<Held>, CircuitState] =>
            current._tag === "Open" && now >= current.nextProbeAt
              ? [Option.none(), { ...current, nextProbeAt: probe.at, scheduleState: probe.state }]
              : [
                current._tag === "Open" ? Option.some({ error: current.error, nextProbeAt: current.nextProbeAt }) : Option.none(),
                current
              ]))
      }))
    const trip = (error: Misconfigured) =>
      Effect.flatMap(EpochMillis.now, (now) =>
        Effect.flatMap(nextProbe(schedule, now, schedule.initial), (probe) =>
          Ref.modify(ref, (current): [{ readonly nextProbeAt: number; readonly opened: boolean }, CircuitState] =>
            current._tag === "Open"
              ? [{ nextProbeAt: current.nextProbeAt, opened: false }, { ...current, error }]
              : [
                { nextProbeAt: probe.at, opened: true },
                { _tag: "Open", error, openedAt: now, nextProbeAt: probe.at, scheduleState: probe.state }
              ])))
    const close = Ref.modify(ref, (current): [boolean, CircuitState] => [current._tag === "Open", { _tag: "Closed" }])
    const holding = Effect.flatMap(EpochMillis.now, (now) =>
      Effect.map(Ref.get(ref), (state) => state._tag === "Open" && now < state.nextProbeAt))
    return { admit, trip, close, holding, status: Effect.map(Ref.get(ref), statusOf) }
  })

/**
 * Without a breaker (the default when no `MailerCircuit` layer is provided): every
 * send goes through; a `Misconfigured` answer still holds its order, uncounted,
 * for the default probe cadence's first delay.
 */
export const noCircuit: MailerCircuitShape = {
  admit: Effect.succeedNone,
  trip: () =>
    Effect.map(EpochMillis.now, (now) => ({ nextProbeAt: now + Duration.toMillis("30 seconds"), opened: true })),
  close: Effect.succeed(false),
  holding: Effect.succeed(false),
  status: Effect.succeed({ mailer: "ok" })
}

/**
 * The breaker over the pipeline's mailer. A `Misconfigured` answer (revoked key,
 * unverified domain, wrong base URL) opens it: sends are held (orders stay
 * pending, attempts not counted) and the sweep skips, until a probe on the
 * `probeEvery` schedule is accepted. A reference: without a layer, `noCircuit`.
 */
export class MailerCircuit extends Context.Reference<MailerCircuit>()("@hookgate/core/MailerCircuit", {
  defaultValue: () => noCircuit
}) {
  /** A breaker of its own, as a service: what `layer` provides. */
  static make(options: MailerCircuitOptions = {}): Effect.Effect<MailerCircuitShape> {
    return make(options)
  }

  /** A breaker of its own (one per pipeline: a tenant's mailer is not another's). */
  static layer(options: MailerCircuitOptions = {}): Layer.Layer<MailerCircuit> {
    return Layer.effect(MailerCircuit, make(options))
  }
}
