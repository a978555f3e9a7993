import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Lease } from "./lease.js"
import { RetryPolicy } from "./retry-policy.js"
import { Outcome } from "./outcome.js"
import { sendLeased } from "./send-leased.js"
import { step } from "../internal/spans.js"

/**
 * One delivery attempt of a stored order, for the sweep and for operators:
 * take the lease (only when due, with `dueOnly`), send, record. An order whose
 * lease is held, or that is not pending or not due, is `Skipped`.
 */
export const deliver = (orderKey: string, options: { readonly dueOnly: boolean } = { dueOnly: true }) =>
  Effect.gen(function*() {
    const policy = yield* RetryPolicy
    const lease = yield* Lease
    const now = yield* Clock.currentTimeMillis
    const leased = yield* lease.acquire(orderKey, {
      now,
      until: now + Duration.toMillis(policy.leaseFor),
      maxAttempts: policy.maxAttempts,
      dueOnly: options.dueOnly
    })
    return Option.isSome(leased)
      ? yield* sendLeased(leased.value)
      : Outcome.Skipped({ orderKey })
  }).pipe(step("deliver", { orderKey }))
