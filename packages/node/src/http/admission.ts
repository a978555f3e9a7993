import { Deferred, Duration, Effect, Exit, FiberId, Option } from "effect"

/**
 * At most `concurrency` webhooks are worked on at once; the next ones wait, first come
 * first served, at most `queueTimeout` each for a slot, and are refused past it (the
 * caller answers 503 with `Retry-After`, and the provider sends the webhook again).
 *
 * Without it, every request that arrives is worked on at once: under 500 connections the
 * CPU, the heap and the mailer's connection pool are shared by 500 webhooks, each one
 * takes 500 times as long, some minutes, and the heap grows with all of them. With it,
 * the webhooks in flight stay few and each finishes in about its own time; a backlog
 * waits outside the heap's working set (its body not read yet) for a bounded time.
 */

export interface AdmissionOptions {
  /** Webhooks worked on at once (HOOKGATE_WEBHOOK_CONCURRENCY). */
  readonly concurrency: number
  /** How long a webhook may wait for a slot before it is refused (HOOKGATE_WEBHOOK_QUEUE_TIMEOUT). */
  readonly queueTimeout: Duration.DurationInput
}

export interface AdmissionGate {
  /** Runs `effect` in a slot, once one is free within the wait: `None` when none came free (refused). */
  readonly admit: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<Option.Option<A>, E, R>
  /** Webhooks in a slot now, and waiting for one. */
  readonly load: Effect.Effect<{ readonly inFlight: number; readonly waiting: number }>
}

export const makeAdmissionGate = (options: AdmissionOptions): Effect.Effect<AdmissionGate> =>
  Effect.sync(() => {
    const wait = Duration.decode(options.queueTimeout)
    let inFlight = 0
    // Insertion-ordered: the first waiter is the oldest; a waiter that gives up leaves at once.
    const waiters = new Set<Deferred.Deferred<void>>()

    /** A slot ends: handed to the oldest waiter (it stays counted in flight), else freed. */
    const release = () => {
      const next = waiters.values().next()
      if (next.done) inFlight--
      else {
        waiters.delete(next.value)
        Deferred.unsafeDone(next.value, Exit.void)
      }
    }

    /**
     * Whether a slot was taken. The wait is interruptible even where the caller is not
     * (@effect/platform runs every middleware uninterruptibly): otherwise the timeout could
     * not end it, and a webhook would wait as long as the line is.
     */
    const acquire = Effect.suspend(() => {
      if (inFlight < options.concurrency && waiters.size === 0) {
        inFlight++
        return Effect.succeed(true)
      }
      const slot = Deferred.unsafeMake<void>(FiberId.none)
      waiters.add(slot)
      // Still waiting (timed out, or interrupted): leave the line. Already handed a slot: keep it.
      const leave = Effect.sync(() => !waiters.delete(slot))
      return Effect.timeoutOption(Effect.interruptible(Deferred.await(slot)), wait).pipe(
        Effect.flatMap((handed) => (Option.isSome(handed) ? Effect.succeed(true) : leave)),
        Effect.onInterrupt(() => Effect.sync(() => (waiters.delete(slot) ? undefined : release())))
      )
    })

    return {
      admit: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.uninterruptibleMask((restore) =>
          Effect.flatMap(acquire, (admitted) =>
            admitted
              ? Effect.asSome(restore(effect)).pipe(Effect.ensuring(Effect.sync(release)))
              : Effect.succeedNone)
        ),
      load: Effect.sync(() => ({ inFlight, waiting: waiters.size }))
    }
  })
