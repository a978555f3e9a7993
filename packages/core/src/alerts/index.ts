/**
 * @hookgate/core/alerts: telling the owner. Alerts are stored first, then the
 * `Alerter` is attempted and its outcome recorded on the stored alert.
 */
export * from "./alert.js"
export * from "./errors.js"
export * from "./alerter.js"
export * from "./alert-store.js"
export { attemptAlert, newAlert, raiseAlert } from "./raise.js"
export { type AlertAttemptRecord, alertAttemptRecord, deferredAttemptRecord } from "./alert-retry.js"
export { retryDueAlerts, type AlertRetryReport } from "./retry-due.js"
