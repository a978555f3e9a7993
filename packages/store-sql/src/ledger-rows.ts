import { CampaignTemplate } from "@hookgate/core/campaigns"
import { DeadLetter, MessageRecord } from "@hookgate/core/queue"
import type { BatchMember, CampaignRow } from "@hookgate/core/campaigns"
import * as Schema from "effect/Schema"

/** Row codecs of the message ledger, dead letters and campaign ledger (integers from numbers or numeric strings). */
const SqlInt = Schema.Union(Schema.Number, Schema.NumberFromString)
const SqlNullableInt = Schema.NullOr(SqlInt)

const MessageRow = Schema.Struct({
  message_key: Schema.String,
  status: MessageRecord.fields.status,
  lease_token: Schema.NullOr(Schema.String),
  lease_expires_at: SqlNullableInt,
  attempts: SqlInt,
  last_error: Schema.NullOr(Schema.String),
  runs: SqlInt,
  duplicates: SqlInt,
  created_at: SqlInt,
  updated_at: SqlInt,
  completed_at: SqlNullableInt
})

export const decodeMessage = (row: unknown): MessageRecord => {
  const r = Schema.decodeUnknownSync(MessageRow)(row)
  return new MessageRecord({
    key: r.message_key,
    status: r.status,
    leaseToken: r.lease_token,
    leaseExpiresAt: r.lease_expires_at,
    attempts: r.attempts,
    lastError: r.last_error,
    runs: r.runs,
    duplicates: r.duplicates,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    completedAt: r.completed_at
  }, true)
}

const DeadLetterRow = Schema.Struct({
  queue: Schema.String,
  message_id: Schema.String,
  body: Schema.String,
  attempts: SqlInt,
  received_at: SqlInt
})

export const decodeDeadLetter = (row: unknown): DeadLetter => {
  const r = Schema.decodeUnknownSync(DeadLetterRow)(row)
  return new DeadLetter({ queue: r.queue, messageId: r.message_id, body: r.body, attempts: r.attempts, receivedAt: r.received_at }, true)
}

const CampaignRowSchema = Schema.Struct({
  campaign_id: Schema.String,
  template: Schema.parseJson(CampaignTemplate),
  state: Schema.Literal("draft", "running", "paused"),
  sealed: SqlInt,
  total: SqlInt,
  batch_size: SqlInt,
  batches: SqlInt,
  duplicates_prevented: SqlInt,
  created_at: SqlInt,
  updated_at: SqlInt
})

export const decodeCampaign = (row: unknown): CampaignRow => {
  const r = Schema.decodeUnknownSync(CampaignRowSchema)(row)
  return {
    id: r.campaign_id,
    template: r.template,
    state: r.state,
    sealed: r.sealed !== 0,
    total: r.total,
    batchSize: r.batch_size,
    batches: r.batches,
    duplicatesPrevented: r.duplicates_prevented,
    createdAt: r.created_at,
    updatedAt: r.updated_at
  }
}

export const encodeTemplate = (template: CampaignTemplate) => JSON.stringify(Schema.encodeSync(CampaignTemplate)(template))

/**
 * A leased member from `RETURNING seq, email, vars, attempts, uncertain, solo`
 * read as values, decoded by hand: a batch's hundred rows are on the hot path.
 */
export const decodeMember = (row: ReadonlyArray<unknown>): BatchMember => ({
  seq: Number(row[0]),
  email: String(row[1]),
  vars: row[2] === null || row[2] === undefined ? undefined : JSON.parse(String(row[2])),
  attempts: Number(row[3]),
  uncertain: Number(row[4]) === 1,
  solo: Number(row[5]) === 1
})
