import * as Chunk from "effect/Chunk"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import { durationConfig } from "./duration-config.js"

/** A mailer's failure as the policy sees it: only its tag matters to the schedules (the mail folder defines the errors). */
type AnyMailerError = { readonly _tag: string }

/** The schedules and limits every sender follows (orders, queue consumers, campaigns). */
export interface RetryPolicyShape {
  /** Retries of a `Transient` mailer error inside one request: short and jittered. */
  readonly inRequest: Schedule.Schedule<unknown, AnyMailerError>
  /** A `retry-after` longer than this is not waited out in-request; the durable backoff takes it. */
  readonly maxInRequestWait: Duration.Duration
  /** The durable backoff: its n-th delay sets `next_attempt_at` after the n-th recorded failure. */
  readonly backoff: Schedule.Schedule<unknown, unknown>
  /** No durable delay is longer than this. */
  readonly maxBackoff: Duration.Duration
  /** Recorded failures after which an order is capped (no sender sends, the owner is alerted). */
  readonly maxAttempts: number
  /** How long a sender may hold an order's lease. */
  readonly leaseFor: Duration.Duration
  /** A send (with its in-request retries) that runs longer ends `Unknown`, well inside the lease. */
  readonly sendTimeout: Duration.Duration
  /** The cadence of the retry sweep. */
  readonly sweepEvery: Schedule.Schedule<unknown, unknown>
  /** What a send may take beyond its timeout while its lease must still hold: the result's write (1 second). */
  readonly leaseMargin: Duration.Duration
}

/** Overrides of the defaults; every field is optional. */
export interface RetryPolicyOptions {
  /** Recorded failures before an order is capped (default 8). */
  readonly maxAttempts?: number
  /** How long a sender may hold a lease (default 5 minutes). */
  readonly leaseFor?: Duration.DurationInput
  /** The sweep's cadence (default 10 minutes). */
  readonly sweepEvery?: Duration.DurationInput
  /** The first durable backoff delay; later ones grow ×3, jittered (default 1 minute). */
  readonly backoffBase?: Duration.DurationInput
  /** No durable delay is longer (default 6 hours). */
  readonly maxBackoff?: Duration.DurationInput
  /** First in-request retry delay (default 100 ms; tests use 0). */
  readonly inRequestBase?: Duration.DurationInput
  /** A send running longer ends `Unknown` (default half the lease). */
  readonly sendTimeout?: Duration.DurationInput
}

/**
 * Defaults: 2 in-request retries from 100 ms, jittered; durable backoff 1 min,
 * 3 min, 9 min, … (×3, jittered) capped at 6 h; cap 8; lease 5 min; sweep every 10 min.
 */
export const makeRetryPolicy = (options: RetryPolicyOptions = {}): RetryPolicyShape => {
  const leaseFor = Duration.decode(options.leaseFor ?? RETRY_DEFAULTS.leaseFor)
  return {
    inRequest: Schedule.exponential(options.inRequestBase ?? RETRY_DEFAULTS.inRequestBase, 2).pipe(
      Schedule.jittered,
      Schedule.intersect(Schedule.recurs(2))
    ),
    maxInRequestWait: Duration.seconds(2),
    backoff: Schedule.exponential(options.backoffBase ?? RETRY_DEFAULTS.backoffBase, 3).pipe(Schedule.jittered),
    maxBackoff: Duration.decode(options.maxBackoff ?? RETRY_DEFAULTS.maxBackoff),
    maxAttempts: options.maxAttempts ?? RETRY_DEFAULTS.maxAttempts,
    leaseFor,
    sendTimeout: options.sendTimeout === undefined ? defaultSendTimeout(leaseFor) : Duration.decode(options.sendTimeout),
    sweepEvery: Schedule.spaced(options.sweepEvery ?? RETRY_DEFAULTS.sweepEvery),
    leaseMargin: LEASE_MARGIN
  }
}

/** What a send may take beyond its timeout while its lease must still hold: the result's write. */
export const LEASE_MARGIN = Duration.seconds(1)

/** The defaults, defined once: every other place reads them from here (or from the policy in context). */
export const RETRY_DEFAULTS = {
  maxAttempts: 8,
  leaseFor: Duration.minutes(5),
  sweepEvery: Duration.minutes(10),
  backoffBase: Duration.minutes(1),
  maxBackoff: Duration.hours(6),
  inRequestBase: Duration.millis(100)
} as const

// Half the lease: a send that outlives it ends Unknown while the lease still holds.
const defaultSendTimeout = (leaseFor: Duration.Duration) => Duration.times(leaseFor, 0.5)

/** One problem with retry settings: the setting (an option name, or the variable it was read from) and what is wrong. */
export interface RetryPolicyProblem {
  readonly setting: string
  readonly message: string
}

/**
 * Every problem with these options, empty when they are usable: durations that
 * must be positive (lease, sweep cadence, send timeout) or not negative (backoff
 * and in-request delays), and an attempt cap below 1. With `requireLeaseMargin`
 * (the settings do), the lease must also exceed the send timeout by
 * `LEASE_MARGIN`, or a send still running when its lease ends lets a second
 * sender send too. `layer(options)` leaves that one out: tests of a lease taken
 * over mid-send need it.
 */
export const retryPolicyProblems = (
  options: RetryPolicyOptions,
  check: { readonly requireLeaseMargin?: boolean; readonly names?: Partial<Record<keyof RetryPolicyOptions, string>> } = {}
): ReadonlyArray<RetryPolicyProblem> => {
  const problems: Array<RetryPolicyProblem> = []
  const name = (option: keyof RetryPolicyOptions) => check.names?.[option] ?? option
  const durationOf = (option: keyof RetryPolicyOptions, mustBe: "positive" | "not negative") => {
    const input = options[option] as Duration.DurationInput | undefined
    if (input === undefined) return undefined
    const duration = Option.filter(
      Duration.decodeUnknown(input),
      (d) => Duration.isFinite(d) && (mustBe === "not negative" || Duration.greaterThan(d, Duration.zero))
    )
    if (Option.isNone(duration)) {
      problems.push({ setting: name(option), message: `must be a ${mustBe === "positive" ? "positive" : "non-negative"} duration, e.g. "5 minutes"` })
    }
    return Option.getOrUndefined(duration)
  }
  if (options.maxAttempts !== undefined && !(Number.isInteger(options.maxAttempts) && options.maxAttempts >= 1)) {
    problems.push({ setting: name("maxAttempts"), message: "must be a whole number, at least 1" })
  }
  const leaseFor = durationOf("leaseFor", "positive")
  durationOf("sweepEvery", "positive")
  const sendTimeout = durationOf("sendTimeout", "positive")
  durationOf("backoffBase", "not negative")
  durationOf("maxBackoff", "not negative")
  durationOf("inRequestBase", "not negative")
  if (check.requireLeaseMargin === true && leaseFor !== undefined) {
    const timeout = sendTimeout ?? (options.sendTimeout === undefined ? defaultSendTimeout(leaseFor) : undefined)
    if (timeout !== undefined && Duration.lessThan(leaseFor, Duration.sum(timeout, LEASE_MARGIN))) {
      problems.push({
        setting: name("leaseFor"),
        message: `must exceed the send timeout (${Duration.format(timeout)}) by at least ${Duration.format(LEASE_MARGIN)}, ` +
          "or a second sender may send while the first is still sending"
      })
    }
  }
  return problems
}

/** The problems as one `ConfigError`: one `InvalidData` per problem, each naming its setting. */
export const retryPolicyConfigError = (problems: ReadonlyArray<RetryPolicyProblem>): ConfigError.ConfigError =>
  problems.map((p) => ConfigError.InvalidData([p.setting], p.message)).reduce((all, next) => ConfigError.And(all, next))

/**
 * The retry settings, validated with one problem per setting: `HOOKGATE_MAX_ATTEMPTS` (8),
 * `HOOKGATE_LEASE` (5 minutes), `HOOKGATE_SWEEP_EVERY` (10 minutes), `HOOKGATE_SEND_TIMEOUT`
 * (half the lease) and `HOOKGATE_RETRY_BACKOFF` (1 minute: the first durable delay, tripled
 * after each further failure).
 */
export const RetryPolicyConfig: Config.Config<RetryPolicyOptions> = Config.all({
  maxAttempts: Config.integer("HOOKGATE_MAX_ATTEMPTS").pipe(Config.withDefault(RETRY_DEFAULTS.maxAttempts)),
  leaseFor: durationConfig("HOOKGATE_LEASE").pipe(Config.withDefault(RETRY_DEFAULTS.leaseFor)),
  sweepEvery: durationConfig("HOOKGATE_SWEEP_EVERY").pipe(Config.withDefault(RETRY_DEFAULTS.sweepEvery)),
  sendTimeout: Config.option(durationConfig("HOOKGATE_SEND_TIMEOUT")),
  backoffBase: durationConfig("HOOKGATE_RETRY_BACKOFF").pipe(Config.withDefault(RETRY_DEFAULTS.backoffBase))
}).pipe(
  Config.mapOrFail(({ sendTimeout, ...rest }) => {
    const options: RetryPolicyOptions = sendTimeout._tag === "Some" ? { ...rest, sendTimeout: sendTimeout.value } : rest
    const problems = retryPolicyProblems(options, {
      requireLeaseMargin: true,
      names: {
        maxAttempts: "HOOKGATE_MAX_ATTEMPTS",
        leaseFor: "HOOKGATE_LEASE",
        sweepEvery: "HOOKGATE_SWEEP_EVERY",
        sendTimeout: "HOOKGATE_SEND_TIMEOUT",
        backoffBase: "HOOKGATE_RETRY_BACKOFF"
      }
    })
    return problems.length === 0 ? Either.right(options) : Either.left(retryPolicyConfigError(problems))
  })
)

// Built once: the policy every sender follows when no layer provides another.
const defaultPolicy: RetryPolicyShape = makeRetryPolicy()

/**
 * How senders retry, back off, cap, lease and sweep: `Schedule`s, so tests drive them
 * with `TestClock`. A reference: without a layer every sender follows the defaults
 * (`RETRY_DEFAULTS`), so no caller needs a fallback of its own.
 */
export class RetryPolicy extends Context.Reference<RetryPolicy>()("@hookgate/core/RetryPolicy", {
  defaultValue: () => defaultPolicy
}) {
  /** The policy for the given options (the defaults without). */
  static make(options: RetryPolicyOptions = {}): Effect.Effect<RetryPolicyShape> {
    return Effect.succeed(makeRetryPolicy(options))
  }

  /**
   * The policy as a layer; `RetryPolicy.layer()` is the defaults. Dies, naming every
   * problem, when an option is out of range (see `retryPolicyProblems`).
   */
  static layer(options: RetryPolicyOptions = {}): Layer.Layer<RetryPolicy> {
    const problems = retryPolicyProblems(options)
    return problems.length > 0
      ? Layer.die(new Error(`invalid RetryPolicy options: ${problems.map((p) => `${p.setting} ${p.message}`).join("; ")}`))
      : Layer.succeed(RetryPolicy, makeRetryPolicy(options))
  }

  /** The policy from Config (`RetryPolicyConfig` by default, validated: one `InvalidData` per problem). */
  static layerConfig(
    config: Config.Config<RetryPolicyOptions> = RetryPolicyConfig
  ): Layer.Layer<RetryPolicy, ConfigError.ConfigError> {
    return Layer.effect(RetryPolicy, Effect.map(config, makeRetryPolicy))
  }
}

/**
 * The durable delay after the `attempts`-th recorded failure: the backoff
 * Schedule stepped `attempts` times, capped at `maxBackoff`.
 */
export const backoffDelay = (policy: RetryPolicyShape, attempts: number): Effect.Effect<Duration.Duration> =>
  Schedule.run(Schedule.delays(policy.backoff), 0, Array.from({ length: Math.max(1, attempts) }, () => undefined))
    .pipe(
      Effect.map((delays) =>
        Duration.min(Chunk.last(delays).pipe((last) => last._tag === "Some" ? last.value : policy.maxBackoff), policy.maxBackoff)
      )
    )
