/**
 * `hookgate_campaigns.sealed`: 1 once a campaign's recipient list is complete. `create`
 * inserts its draft with 0 and sets 1 in the same atomic step as its last recipients;
 * `replace` sets 0 again; `start` applies only to a sealed draft with recipients, so a
 * start that lands while recipients are still streaming in is refused, never started on
 * part of the list. The default is 1, so every campaign from before (and a draft an older
 * release writes after a rollback) counts as complete, as it did then; a draft's `total`
 * and `batches` are counted again from its rows, as the older `start` did.
 */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE hookgate_campaigns ADD COLUMN sealed INTEGER NOT NULL DEFAULT 1`,
  `UPDATE hookgate_campaigns SET
  total = (SELECT COUNT(*) FROM hookgate_campaign_recipients r WHERE r.campaign_id = hookgate_campaigns.campaign_id),
  batches = ((SELECT COUNT(*) FROM hookgate_campaign_recipients r WHERE r.campaign_id = hookgate_campaigns.campaign_id)
    + batch_size - 1) / batch_size
WHERE state = 'draft'`
]
