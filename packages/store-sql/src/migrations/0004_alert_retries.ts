/**
 * Alert re-attempts: how many attempts an alert has had and when the sweep attempts it
 * again (epoch ms; NULL when delivered, not yet attempted, or left for the operator).
 * Alerts whose delivery had already failed become due at once, counted as one attempt.
 */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE hookgate_alerts ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0`,
  `ALTER TABLE hookgate_alerts ADD COLUMN next_attempt_at BIGINT`,
  `CREATE INDEX hookgate_alerts_due ON hookgate_alerts (next_attempt_at)`,
  `UPDATE hookgate_alerts SET attempts = 1, next_attempt_at = created_at
WHERE delivered_at IS NULL AND delivery_error IS NOT NULL`
]
