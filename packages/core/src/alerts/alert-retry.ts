import * as Effect from "effect/Effect"
import * as EpochMillis from "../kernel/EpochMillis.js"
import { backoffDelay, type RetryPolicyShape } from "../kernel/retry-policy.js"
import type { Alert } from "./alert.js"

/** What `AlertStore.recordAttempt` records after one attempt. */
export interface AlertAttemptRecord {
  readonly at: number
  readonly error: string | null
  readonly attempts: number
  readonly nextAttemptAt: number | null
}

/**
 * The record of one ended attempt of `alert`: one more attempt; after a failure the next
 * one is due after the policy's durable backoff (its `attempts`-th delay, as for orders),
 * until `maxAttempts` attempts have failed, after which it is left for the operator.
 */
export const alertAttemptRecord = (
  policy: RetryPolicyShape,
  alert: Alert,
  error: string | null,
  at: number
): Effect.Effect<AlertAttemptRecord> => {
  const attempts = alert.attempts + 1
  if (error === null || attempts >= policy.maxAttempts) return Effect.succeed({ at, error, attempts, nextAttemptAt: null })
  return Effect.map(backoffDelay(policy, attempts), (delay) => ({ at, error, attempts, nextAttemptAt: EpochMillis.after(at, delay) }))
}

/**
 * The record of an attempt handed to the background (Workers' `waitUntil`): not counted,
 * since the background records its real outcome; due again after the next backoff delay
 * in case that record never comes (the isolate ended first).
 */
export const deferredAttemptRecord = (
  policy: RetryPolicyShape,
  alert: Alert,
  detail: string,
  at: number
): Effect.Effect<AlertAttemptRecord> =>
  Effect.map(alertAttemptRecord(policy, alert, detail, at), (next) => ({ ...next, attempts: alert.attempts }))
