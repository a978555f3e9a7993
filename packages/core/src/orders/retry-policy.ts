import { Chunk, Config, Context, Duration, Effect, Layer, Schedule } from "effect"
import type { MailerError } from "../mail/errors.js"

export interface RetryPolicyShape {
  /** Retries of a `Transient` mailer error inside one request: short and jittered. */
  readonly inRequest: Schedule.Schedule<unknown, MailerError>
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
}

export interface RetryPolicyOptions {
  readonly maxAttempts?: number
  readonly leaseFor?: Duration.DurationInput
  readonly sweepEvery?: Duration.DurationInput
  readonly backoffBase?: Duration.DurationInput
  readonly maxBackoff?: Duration.DurationInput
  /** First in-request retry delay (default 100 ms; tests use 0). */
  readonly inRequestBase?: Duration.DurationInput
  readonly sendTimeout?: Duration.DurationInput
}

/**
 * Defaults: 2 in-request retries from 100 ms, jittered; durable backoff 1 min,
 * 3 min, 9 min, … (×3, jittered) capped at 6 h; cap 8; lease 5 min; sweep every 10 min.
 */
export const makeRetryPolicy = (options: RetryPolicyOptions = {}): RetryPolicyShape => {
  const leaseFor = Duration.decode(options.leaseFor ?? "5 minutes")
  return {
    inRequest: Schedule.exponential(options.inRequestBase ?? "100 millis", 2).pipe(
      Schedule.jittered,
      Schedule.intersect(Schedule.recurs(2))
    ),
    maxInRequestWait: Duration.seconds(2),
    backoff: Schedule.exponential(options.backoffBase ?? "1 minute", 3).pipe(Schedule.jittered),
    maxBackoff: Duration.decode(options.maxBackoff ?? "6 hours"),
    maxAttempts: options.maxAttempts ?? 8,
    leaseFor,
    // Half the lease: a send that outlives it ends Unknown while the lease still holds.
    sendTimeout: options.sendTimeout === undefined ? Duration.times(leaseFor, 0.5) : Duration.decode(options.sendTimeout),
    sweepEvery: Schedule.spaced(options.sweepEvery ?? "10 minutes")
  }
}

export class RetryPolicy extends Context.Tag("@hookgate/core/RetryPolicy")<RetryPolicy, RetryPolicyShape>() {
  static readonly Default: Layer.Layer<RetryPolicy> = Layer.succeed(RetryPolicy, makeRetryPolicy())

  static layer(options: RetryPolicyOptions): Layer.Layer<RetryPolicy> {
    return Layer.succeed(RetryPolicy, makeRetryPolicy(options))
  }

  /** Reads `HOOKGATE_MAX_ATTEMPTS` (8), `HOOKGATE_LEASE` (5 minutes), `HOOKGATE_SWEEP_EVERY` (10 minutes). */
  static readonly layerConfig = Layer.effect(
    RetryPolicy,
    Effect.map(
      Config.all({
        maxAttempts: Config.integer("HOOKGATE_MAX_ATTEMPTS").pipe(
          Config.validate({ message: "must be at least 1", validation: (n) => n >= 1 }),
          Config.withDefault(8)
        ),
        leaseFor: Config.duration("HOOKGATE_LEASE").pipe(Config.withDefault(Duration.minutes(5))),
        sweepEvery: Config.duration("HOOKGATE_SWEEP_EVERY").pipe(Config.withDefault(Duration.minutes(10)))
      }),
      makeRetryPolicy
    )
  )
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
