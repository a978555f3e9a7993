/**
 * SQLite and D1 only: the attempt's row written by the order's own guarded write, so that
 * write stays one statement (as Postgres's is, with a CTE: it needs neither of these).
 * `complete` and `release` set the five `note_*` columns beside the order's new state when
 * they carry an `AttemptNote`; the trigger fires only for a write that sets them (`UPDATE
 * OF note_attempt`) and only on the row the write's guard let through, and inserts the
 * attempt's row in the same statement: keyed by the lease token the write replaced,
 * recorded at the `updated_at` the write set (its time). No other write names the columns,
 * so nothing else fires it; they keep the last note, and nothing reads them. The
 * body's inner `;` is not at a line's end, so a split at `;` + end of line keeps it whole
 * (as `wrangler d1 migrations apply` keeps `BEGIN … END`).
 */
export const sqlite: ReadonlyArray<string> = [
  `ALTER TABLE hookgate_orders ADD COLUMN note_attempt INTEGER`,
  `ALTER TABLE hookgate_orders ADD COLUMN note_outcome TEXT`,
  `ALTER TABLE hookgate_orders ADD COLUMN note_error_class TEXT`,
  `ALTER TABLE hookgate_orders ADD COLUMN note_detail TEXT`,
  `ALTER TABLE hookgate_orders ADD COLUMN note_started_at BIGINT`,
  `CREATE TRIGGER hookgate_orders_attempt_noted AFTER UPDATE OF note_attempt ON hookgate_orders
WHEN NEW.note_attempt IS NOT NULL AND OLD.lease_token IS NOT NULL
BEGIN
  INSERT INTO hookgate_attempts (order_key, lease_token, attempt, outcome, error_class, detail, started_at, recorded_at)
  VALUES (NEW.order_key, OLD.lease_token, NEW.note_attempt, NEW.note_outcome, NEW.note_error_class, NEW.note_detail,
    NEW.note_started_at, NEW.updated_at)
  ON CONFLICT DO NOTHING; END`
]

/** Postgres: nothing (its write keeps the row with a CTE). */
export const statements: ReadonlyArray<string> = []
