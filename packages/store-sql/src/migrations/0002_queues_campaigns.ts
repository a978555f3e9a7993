/**
 * The message ledger (Consumer.once), the dead letters, and the campaign
 * ledger. Same conventions as 0001: text keys, BIGINT epoch-ms times, 0/1
 * booleans, JSON as TEXT, every table prefixed `hookgate_`.
 */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE hookgate_messages (
  message_key TEXT PRIMARY KEY NOT NULL,
  status TEXT NOT NULL,
  lease_token TEXT,
  lease_expires_at BIGINT,
  attempts INTEGER NOT NULL,
  last_error TEXT,
  runs INTEGER NOT NULL,
  duplicates INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  completed_at BIGINT
)`,
  `CREATE TABLE hookgate_dead_letters (
  queue TEXT NOT NULL,
  message_id TEXT NOT NULL,
  body TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  received_at BIGINT NOT NULL,
  PRIMARY KEY (queue, message_id)
)`,
  `CREATE INDEX hookgate_dead_letters_received ON hookgate_dead_letters (received_at)`,
  `CREATE TABLE hookgate_campaigns (
  campaign_id TEXT PRIMARY KEY NOT NULL,
  template TEXT NOT NULL,
  state TEXT NOT NULL,
  total INTEGER NOT NULL,
  batch_size INTEGER NOT NULL,
  batches INTEGER NOT NULL,
  duplicates_prevented INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
)`,
  `CREATE TABLE hookgate_campaign_recipients (
  campaign_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  email TEXT NOT NULL,
  vars TEXT,
  status TEXT NOT NULL,
  batch_no INTEGER,
  lease_token TEXT,
  lease_expires_at BIGINT,
  attempts INTEGER NOT NULL,
  uncertain INTEGER NOT NULL,
  solo INTEGER NOT NULL,
  last_error TEXT,
  message_id TEXT,
  sent_at BIGINT,
  PRIMARY KEY (campaign_id, seq)
)`,
  `CREATE UNIQUE INDEX hookgate_campaign_recipients_email ON hookgate_campaign_recipients (campaign_id, email)`,
  // One index finds a batch's members and, under batch_no NULL, the next recipients to reserve in order.
  `CREATE INDEX hookgate_campaign_recipients_batch ON hookgate_campaign_recipients (campaign_id, batch_no, seq)`
]
