/**
 * Where each provider's unfinished reconciliation run got to: the `created` (epoch ms)
 * and event id of the last object it took, oldest first. A table of its own, so
 * `0006_reconcile`'s cursors stay as they landed (migrations only add); a finished run
 * deletes its row. And the paid orders a run told the owner about without sending them
 * (a provider whose API cannot rebuild the fulfilment, Creem), so no key is named twice.
 */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE hookgate_reconcile_positions (
  provider TEXT PRIMARY KEY,
  created_at BIGINT NOT NULL,
  event_id TEXT NOT NULL,
  updated_at BIGINT NOT NULL
)`,
  `CREATE TABLE hookgate_reconcile_alerted (
  provider TEXT NOT NULL,
  order_key TEXT NOT NULL,
  alerted_at BIGINT NOT NULL,
  PRIMARY KEY (provider, order_key)
)`
]
