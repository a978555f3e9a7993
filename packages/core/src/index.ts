/**
 * @hookgate/core: the order kernel. An order's domain and errors, the `OrderStore`,
 * `Lease`, `Renderer` and `RetryPolicy` services, and the pipeline that takes a
 * verified webhook to one email: `receive`, `deliver`, `sweep`.
 *
 * The other parts are their own entry points: `@hookgate/core/mail`, `/alerts`,
 * `/providers`, `/queue`, `/campaigns`, `/http`, `/testing`, `/conformance`.
 */
export { EventReceipt, newLeasedOrder, NewOrder, Order, OrderStatus, ReceiptOutcome, type StoreStats } from "./orders/order.js"
export { Fulfilment } from "./orders/fulfilment.js"
export * from "./orders/errors.js"
export * from "./orders/order-store.js"
export * from "./orders/lease.js"
export * from "./orders/renderer.js"
export {
  LEASE_MARGIN,
  RetryPolicy,
  RetryPolicyConfig,
  type RetryPolicyOptions,
  type RetryPolicyProblem,
  retryPolicyConfigError,
  retryPolicyProblems,
  type RetryPolicyShape
} from "./orders/retry-policy.js"
export { Outcome } from "./orders/outcome.js"
export { receive } from "./orders/receive.js"
export { deliver } from "./orders/deliver.js"
export { runSweeper, sweep, type SweepOptions, SweepReport } from "./orders/sweep.js"
export { Metrics, UNKNOWN_PROVIDER_LABEL } from "./observability/metrics.js"
/** Duration settings in every form an operator writes them (`5m`, `2m 30s`, `5 minutes`, `30000`, `PT5M`). */
export { DURATION_FORMS, durationConfig, parseDuration } from "./settings/duration.js"
export { consoleJsonLogger, jsonLogger } from "./observability/json-logger.js"
/** Whole epoch milliseconds for every time a store keeps: the wrappers each store puts around its services. */
export * as EpochMillis from "./storage/epoch-millis.js"
/**
 * A span `hookgate.<name>` around an effect when a tracer exports it (e.g.
 * `@effect/opentelemetry`'s), and nothing under Effect's built-in tracer, which
 * exports nowhere: what the pipeline's own spans do, for plugins (mailers) to use.
 */
export { step as spanWhenTraced } from "./internal/spans.js"
