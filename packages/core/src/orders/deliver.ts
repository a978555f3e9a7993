import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Lease } from "./lease.js"
import { leaseTerms } from "../kernel/lease-protocol.js"
import { RetryPolicy } from "../kernel/retry-policy.js"
import { Outcome } from "./outcome.js"
import { sendLeased } from "./send-leased.js"
import { spanWhenTraced } from "../kernel/spans.js"

/**
 * One delivery attempt of a stored order, for the sweep and for operators:
 * take the lease (only when due, with `dueOnly`), send, record. An order whose
 * lease is held, or that is not pending or not due, is `Skipped`.
 */
export const deliver = (orderKey: string, options: { readonly dueOnly: boolean } = { dueOnly: true }) =>
  Effect.gen(function*() {
    const policy = yield* RetryPolicy
    const lease = yield* Lease
    const leased = yield* lease.acquire(orderKey, {
      ...yield* leaseTerms(),
      maxAttempts: policy.maxAttempts,
      dueOnly: options.dueOnly
    })
    return Option.isSome(leased)
      ? yield* sendLeased(leased.value)
      : Outcome.Skipped({ orderKey })
  }).pipe(spanWhenTraced("deliver", { orderKey }))
