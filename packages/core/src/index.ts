/**
 * @hookgate/core: the order kernel. An order's domain and errors, the `OrderStore`,
 * `Lease`, `Renderer` and `RetryPolicy` services, and the pipeline that takes a
 * verified webhook to one email: `receive`, `deliver`, `sweep`.
 *
 * The other parts are their own entry points: `@hookgate/core/mail`, `/alerts`,
 * `/providers`, `/queue`, `/campaigns`, `/http`, `/testing`, `/conformance`.
 */
export {
  EventReceipt,
  newLeasedOrder,
  NewOrder,
  Order,
  OrderSource,
  OrderStatus,
  ReceiptOutcome,
  type StoreStats
} from "./orders/order.js"
export { Fulfilment, fulfilmentHash } from "./kernel/fulfilment.js"
export { StoreUnavailable } from "./kernel/store-errors.js"
export { leaseTerms, leaseTermsFrom, type LeaseTerms } from "./kernel/lease-protocol.js"
export { buildInStep } from "./kernel/build-in-step.js"
export { Digest, type DigestService, sha256, sha256Hex, webCryptoDigest } from "./kernel/digest.js"
export * from "./orders/errors.js"
export * from "./orders/order-store.js"
export * from "./orders/lease.js"
export * from "./orders/renderer.js"
export {
  RETRY_DEFAULTS,
  LEASE_MARGIN,
  RetryPolicy,
  RetryPolicyConfig,
  type RetryPolicyOptions,
  type RetryPolicyProblem,
  retryPolicyConfigError,
  retryPolicyProblems,
  type RetryPolicyShape
} from "./kernel/retry-policy.js"
export { Outcome } from "./orders/outcome.js"
export { receive } from "./orders/receive.js"
export { deliver } from "./orders/deliver.js"
export {
  CURSOR_OVERLAP,
  DEFAULT_LOOKBACK,
  ProviderReconcileSummary,
  reconcile,
  type ReconcileOptions,
  ReconcileReport
} from "./orders/reconcile.js"
export {
  ReconcileCursors,
  type ReconcileCursorsShape,
  type ReconcilePosition
} from "./orders/reconcile-cursors.js"
export { runSweeper, sweep, type SweepOptions, SweepReport } from "./orders/sweep.js"
export { Attempt, ATTEMPT_DETAIL_MAX, attemptDetail, type AttemptNote, AttemptOutcome } from "./orders/attempt.js"
export { RunKind, RunLog, type RunLogShape, type StoredRun } from "./orders/run-log.js"
export { type LastRun, type LastRuns, lastRuns } from "./orders/last-runs.js"
/** The pipeline's counters and gauges (`Metrics.webhook`, `Metrics.send`, …, `Metrics.UNKNOWN_PROVIDER_LABEL`). */
export * as Metrics from "./observability/Metrics.js"
/** Duration settings in every form an operator writes them (`5m`, `2m 30s`, `5 minutes`, `30000`, `PT5M`). */
export { DURATION_FORMS, durationConfig, parseDuration } from "./kernel/duration-config.js"
/** Settings renamed to one name per concept, read under their former names for one release, with a warning. */
export { RENAMED_SETTINGS, renamedConfig, type RenamedSetting, warnRenamed } from "./kernel/renamed-setting.js"
export { consoleJsonLogger, jsonLogger } from "./observability/json-logger.js"
/** Whole epoch milliseconds, made where every stored time is produced: `now`, `after`. */
export * as EpochMillis from "./kernel/EpochMillis.js"
/**
 * A span `hookgate.<name>` around an effect when a tracer exports it (e.g.
 * `@effect/opentelemetry`'s), and nothing under Effect's built-in tracer, which
 * exports nowhere: what the pipeline's own spans do, for plugins (mailers,
 * stores, alerters) to use; `tracingEnabled` is the one decision behind it.
 */
export { runtimeTracingEnabled, spanWhenTraced, tracingEnabled } from "./kernel/spans.js"
