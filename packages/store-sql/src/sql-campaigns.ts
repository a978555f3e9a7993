import * as SqlClient from "@effect/sql/SqlClient"
import { type BatchReservation, type CampaignDraft, type CampaignStoreShape, type LedgerCounts, type Recipient } from "@hookgate/core/campaigns"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { SqlAtomic } from "./atomic.js"
import { jsonArrays } from "./json-batches.js"
import { decodeCampaign, decodeMember, encodeTemplate } from "./ledger-rows.js"
import { insertRecordAlert } from "./sql-alerts.js"
import { unavailable } from "./unavailable.js"

/**
 * The campaign ledger in SQL. A whole batch travels in ONE bound parameter (a
 * JSON array), expanded by `json_each` on SQLite and D1 and by
 * `jsonb_to_recordset` on Postgres: a hundred recipients never come near D1's
 * limit of 100 parameters per statement, and a batch costs two statements from
 * reservation to sent (reserve-and-lease, record). Each array is also bounded by
 * bytes (`jsonArrays`), so no parameter nears D1's 2,000,000-byte string limit: rows
 * that would exceed it take one more statement. A record that fails a recipient stores
 * the batch's alert with it, in one `SqlAtomic` step.
 */
export const makeSqlCampaignStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const atomic = yield* SqlAtomic

  // A JSON array as a table of rows; `columns` name the keys and their Postgres types.
  const jsonRows = (json: string, columns: ReadonlyArray<readonly [string, string]>) =>
    sql.onDialectOrElse({
      pg: () => sql`jsonb_to_recordset(${json}::jsonb) AS r(${sql.literal(columns.map(([name, type]) => `${name} ${type}`).join(", "))})`,
      orElse: () =>
        sql`(SELECT ${
          sql.literal(columns.map(([name]) => `json_extract(value, '$.${name}') AS ${name}`).join(", "))
        } FROM json_each(${json})) AS r`
    })

  // The campaign row is still the draft `draft`'s create is writing (no other create replaced it).
  const ownDraft = ({ campaignId, token }: CampaignDraft) =>
    sql`campaign_id = ${campaignId} AND state = 'draft' AND draft_token = ${token}`

  // The same, from a statement on the recipients. On Postgres the row is read FOR SHARE: a
  // replace committing meanwhile (it holds the row) is waited for and its token seen, and a
  // replace that comes after waits for this write, so its delete sees these rows. SQLite and
  // D1 run one write at a time.
  const isDraft = (draft: CampaignDraft) => {
    const draftRow = sql`SELECT 1 FROM hookgate_campaigns WHERE ${ownDraft(draft)}`
    return sql.onDialectOrElse({ pg: () => sql`EXISTS (${draftRow} FOR SHARE)`, orElse: () => sql`EXISTS (${draftRow})` })
  }

  // Recipients of a draft from `firstSeq` on, as few statements as their bytes allow.
  const insertRecipients = (draft: CampaignDraft, firstSeq: number, recipients: ReadonlyArray<Recipient>) =>
    jsonArrays(recipients.map((r, i) => ({
      s: firstSeq + i,
      e: r.email,
      v: r.vars === undefined ? null : JSON.stringify(r.vars)
    }))).map((json) =>
      sql`INSERT INTO hookgate_campaign_recipients
  (campaign_id, seq, email, vars, status, attempts, uncertain, solo)
SELECT ${draft.campaignId}, r.s, r.e, r.v, 'queued', 0, 0, 0
FROM ${jsonRows(json, [["s", "bigint"], ["e", "text"], ["v", "text"]])}
WHERE ${isDraft(draft)}
ON CONFLICT DO NOTHING`
    )

  const selectCampaign = (id: string) =>
    Effect.map(sql`SELECT * FROM hookgate_campaigns WHERE campaign_id = ${id}`, (rows) =>
      Option.map(Option.fromNullable(rows[0]), decodeCampaign))

  const classify = (id: string, batch: number, now: number) =>
    Effect.gen(function*() {
      const [row] = yield* sql<{ state: string; members: number | string; open: number | string; lease_until: number | string | null }>`
SELECT state,
  (SELECT COUNT(*) FROM hookgate_campaign_recipients WHERE campaign_id = ${id} AND batch_no = ${batch}) AS members,
  (SELECT COUNT(*) FROM hookgate_campaign_recipients WHERE campaign_id = ${id} AND batch_no = ${batch} AND status = 'reserved') AS open,
  (SELECT MAX(lease_expires_at) FROM hookgate_campaign_recipients
    WHERE campaign_id = ${id} AND batch_no = ${batch} AND status = 'reserved') AS lease_until
FROM hookgate_campaigns WHERE campaign_id = ${id}`
      if (row === undefined) return { _tag: "NotFound" } satisfies BatchReservation
      if (row.state !== "running") return { _tag: "NotRunning", state: row.state as "draft" | "paused" } satisfies BatchReservation
      if (Number(row.members) === 0) return { _tag: "Empty" } satisfies BatchReservation
      if (Number(row.open) === 0) return { _tag: "Done", members: Number(row.members) } satisfies BatchReservation
      // Held elsewhere (or taken over an instant ago): ask again when that lease ends.
      return { _tag: "InProgress", until: Number(row.lease_until ?? now) } satisfies BatchReservation
    })

  const store: CampaignStoreShape = {
    create: ({ batchSize, id, now, template, token }) =>
      Effect.gen(function*() {
        const inserted = yield* sql`INSERT INTO hookgate_campaigns
  (campaign_id, template, state, sealed, total, batch_size, batches, duplicates_prevented, created_at, updated_at, draft_token)
VALUES (${id}, ${encodeTemplate(template)}, 'draft', 0, 0, ${batchSize}, 0, 0, ${now}, ${now}, ${token})
ON CONFLICT (campaign_id) DO NOTHING RETURNING *`
        if (inserted[0] !== undefined) return { created: true, campaign: decodeCampaign(inserted[0]) }
        const existing = yield* selectCampaign(id)
        if (Option.isNone(existing)) return yield* Effect.dieMessage(`campaign ${id} neither inserted nor found`)
        return { created: false, campaign: existing.value }
      }).pipe(unavailable("campaign.create")),

    // One atomic step, both statements guarded by the draft state: a start that commits
    // first leaves the campaign as it was. The delete runs once the row carries the new
    // token, so the create it replaced adds nothing after it.
    replace: ({ batchSize, id, now, template, token }) =>
      atomic.run([
        sql`UPDATE hookgate_campaigns SET template = ${encodeTemplate(template)}, batch_size = ${batchSize},
  sealed = 0, total = 0, batches = 0, updated_at = ${now}, draft_token = ${token}
WHERE campaign_id = ${id} AND state = 'draft' RETURNING *`,
        sql`DELETE FROM hookgate_campaign_recipients WHERE campaign_id = ${id}
  AND ${isDraft({ campaignId: id, token })}`
      ]).pipe(
        Effect.map(([updated]) => Option.map(Option.fromNullable(updated?.[0]), decodeCampaign)),
        unavailable("campaign.replace")
      ),

    // Recipients first, while the campaign row still says draft with this token; then the row itself.
    discard: (draft) =>
      atomic.run([
        sql`DELETE FROM hookgate_campaign_recipients WHERE campaign_id = ${draft.campaignId} AND ${isDraft(draft)}`,
        sql`DELETE FROM hookgate_campaigns WHERE ${ownDraft(draft)} RETURNING campaign_id`
      ]).pipe(
        Effect.map(([, deleted]) => (deleted?.length ?? 0) > 0),
        unavailable("campaign.discard")
      ),

    addRecipients: (draft, firstSeq, recipients) =>
      Effect.forEach(insertRecipients(draft, firstSeq, recipients), (statement) => statement, { discard: true }).pipe(
        unavailable("campaign.addRecipients")
      ),

    // The last recipients and the seal in one atomic step: the list is complete in the write that completes it.
    seal: (draft, { firstSeq, now, recipients }) =>
      atomic.run([
        ...insertRecipients(draft, firstSeq, recipients),
        sql`UPDATE hookgate_campaigns SET sealed = 1,
  total = (SELECT COUNT(*) FROM hookgate_campaign_recipients WHERE campaign_id = ${draft.campaignId}),
  batches = ((SELECT COUNT(*) FROM hookgate_campaign_recipients WHERE campaign_id = ${draft.campaignId}) + batch_size - 1) / batch_size,
  updated_at = ${now}
WHERE ${ownDraft(draft)} RETURNING *`
      ]).pipe(
        Effect.map((answers) => Option.map(Option.fromNullable(answers[answers.length - 1]?.[0]), decodeCampaign)),
        unavailable("campaign.seal")
      ),

    get: (id) => selectCampaign(id).pipe(unavailable("campaign.get")),

    list: ({ limit }) =>
      sql`SELECT * FROM hookgate_campaigns ORDER BY created_at DESC, campaign_id LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map(decodeCampaign)),
        unavailable("campaign.list")
      ),

    // One conditional UPDATE: of concurrent transitions from one state, exactly one applies (a row
    // lock on Postgres, where the waiter re-checks `state` on the row its winner wrote).
    transition: (id, { from, now, to, whileOpen, whileSealed }) =>
      sql`UPDATE hookgate_campaigns SET state = ${to}, updated_at = ${now}
WHERE campaign_id = ${id} AND ${sql.in("state", from)}${
        whileOpen === true
          ? sql` AND EXISTS (SELECT 1 FROM hookgate_campaign_recipients
  WHERE campaign_id = ${id} AND status IN ('queued', 'reserved'))`
          : sql.literal("")
      }${whileSealed === true ? sql.literal(" AND sealed = 1 AND total > 0") : sql.literal("")} RETURNING *`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), decodeCampaign)),
        unavailable("campaign.transition")
      ),

    failedRecipients: (id, { limit }) =>
      sql<{ seq: number | string; email: string; last_error: string | null }>`SELECT seq, email, last_error
FROM hookgate_campaign_recipients WHERE campaign_id = ${id} AND status = 'failed' ORDER BY seq LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map((row) => ({ seq: Number(row.seq), email: row.email, error: row.last_error }))),
        unavailable("campaign.failedRecipients")
      ),

    counts: (id) =>
      sql<{ status: string; n: number | string }>`SELECT status, COUNT(*) AS n FROM hookgate_campaign_recipients
WHERE campaign_id = ${id} GROUP BY status`.pipe(
        Effect.map((rows) => {
          const counts: Record<keyof LedgerCounts, number> = { queued: 0, reserved: 0, sent: 0, failed: 0 }
          for (const row of rows) if (row.status in counts) counts[row.status as keyof LedgerCounts] = Number(row.n)
          return counts
        }),
        unavailable("campaign.counts")
      ),

    openBatches: (id) =>
      Effect.gen(function*() {
        const campaign = yield* selectCampaign(id)
        if (Option.isNone(campaign)) return []
        // Slots whose rows are all sent or failed are closed; every other slot is open.
        const closed = yield* sql<{ batch_no: number | string }>`SELECT batch_no FROM hookgate_campaign_recipients
WHERE campaign_id = ${id} AND batch_no IS NOT NULL
GROUP BY batch_no HAVING SUM(CASE WHEN status = 'reserved' THEN 1 ELSE 0 END) = 0`
        const done = new Set(closed.map((row) => Number(row.batch_no)))
        const open: Array<number> = []
        for (let n = 1; n <= campaign.value.batches; n++) if (!done.has(n)) open.push(n)
        return open
      }).pipe(unavailable("campaign.openBatches")),

    reserve: (id, batch, { now, size, token, until }) =>
      Effect.gen(function*() {
        // Either the batch's own reserved rows whose lease is free or expired, or, for a slot
        // never used, the next `size` queued recipients; only while the campaign runs.
        const update = sql`UPDATE hookgate_campaign_recipients SET
  status = 'reserved', batch_no = ${batch}, lease_token = ${token}, lease_expires_at = ${until},
  uncertain = CASE WHEN lease_token IS NULL THEN uncertain ELSE 1 END
WHERE campaign_id = ${id}
  AND EXISTS (SELECT 1 FROM hookgate_campaigns WHERE campaign_id = ${id} AND state = 'running')
  AND seq IN (
    SELECT seq FROM hookgate_campaign_recipients
    WHERE campaign_id = ${id} AND batch_no = ${batch} AND status = 'reserved'
      AND (lease_token IS NULL OR lease_expires_at <= ${now})
    UNION ALL
    SELECT seq FROM (
      SELECT seq FROM hookgate_campaign_recipients
      WHERE campaign_id = ${id} AND batch_no IS NULL ORDER BY seq LIMIT ${size}
    ) AS next_rows
    WHERE NOT EXISTS (SELECT 1 FROM hookgate_campaign_recipients WHERE campaign_id = ${id} AND batch_no = ${batch})
  )
RETURNING seq, email, vars, attempts, uncertain, solo`.values
        const rows = yield* sql.onDialectOrElse({
          // SQLite and D1 run one writer at a time. Postgres runs reservations side by side
          // under READ COMMITTED, where two processes' UPDATEs could both pick the same
          // unreserved rows from their snapshots (the row recheck after a lock wait does not
          // re-run the subquery). A transaction-scoped advisory lock per campaign makes them
          // take turns, and the UPDATE, a statement of its own, then sees the previous
          // reservation committed.
          pg: () =>
            sql.withTransaction(
              Effect.zipRight(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`hookgate_campaign:${id}`}, 0))`, update)
            ),
          orElse: () => update
        })
        if (rows.length > 0) return { _tag: "Leased" as const, members: rows.map(decodeMember) }
        return yield* classify(id, batch, now)
      }).pipe(unavailable("campaign.reserve")),

    record: (id, batch, token, results, now, alerts = []) => {
      // The batch's results are materialised once, then each drives a primary-key lookup
      // (SQLite's unary `+` keeps the planner off the batch index, which would make the
      // results the inner loop: a hundred JSON scans instead of one).
      const unindexed = sql.onDialectOrElse({ pg: () => sql.literal(""), orElse: () => sql.literal("+") })
      const guard = sql`hookgate_campaign_recipients.campaign_id = ${id} AND hookgate_campaign_recipients.seq = r.s
  AND ${unindexed}hookgate_campaign_recipients.batch_no = ${batch}
  AND hookgate_campaign_recipients.lease_token = ${token}
  AND ${unindexed}hookgate_campaign_recipients.status = 'reserved'`
      // The happy path, every member sent: only their message ids travel.
      const allSent = results.every((r) => r.outcome === "sent")
      const statement = (json: string) => allSent
        ? sql`WITH r AS MATERIALIZED (
  SELECT * FROM ${jsonRows(json, [["s", "bigint"], ["m", "text"]])}
)
UPDATE hookgate_campaign_recipients SET status = 'sent', message_id = r.m, last_error = NULL, sent_at = ${now},
  lease_token = NULL, lease_expires_at = NULL, released_token = ${token}
FROM r WHERE ${guard}
RETURNING hookgate_campaign_recipients.seq`
        : sql`WITH r AS MATERIALIZED (
  SELECT * FROM ${jsonRows(json, [["s", "bigint"], ["o", "text"], ["m", "text"], ["e", "text"], ["u", "int"], ["l", "int"], ["h", "int"]])}
)
UPDATE hookgate_campaign_recipients SET
  status = CASE WHEN r.o = 'retry' THEN 'reserved' ELSE r.o END,
  attempts = attempts + CASE WHEN r.o = 'sent' OR r.h = 1 THEN 0 ELSE 1 END,
  message_id = COALESCE(r.m, hookgate_campaign_recipients.message_id),
  last_error = r.e,
  sent_at = CASE WHEN r.o = 'sent' THEN CAST(${now} AS BIGINT) ELSE NULL END,
  uncertain = CASE WHEN r.u = 1 THEN 1 ELSE hookgate_campaign_recipients.uncertain END,
  solo = CASE WHEN r.l = 1 THEN 1 ELSE hookgate_campaign_recipients.solo END,
  lease_token = NULL, lease_expires_at = NULL, released_token = ${token}
FROM r WHERE ${guard}
RETURNING hookgate_campaign_recipients.seq`
      const rows = allSent
        ? results.map((r) => ({ s: r.seq, m: r.messageId ?? null }))
        : results.map((r) => ({
          s: r.seq,
          o: r.outcome,
          m: r.messageId ?? null,
          e: r.error ?? null,
          u: r.uncertain === true ? 1 : 0,
          l: r.solo === true ? 1 : 0,
          h: r.held === true ? 1 : 0
        }))
      // One statement unless long errors push the results past the byte bound.
      // As arrays (`values`): only the count matters, so no row objects are built.
      if (alerts.length === 0) {
        return Effect.reduce(jsonArrays(rows), 0, (updated, json) => Effect.map(statement(json).values, (done) => updated + done.length))
          .pipe(unavailable("campaign.record"))
      }
      // With the batch's alerts: one atomic step (a transaction, one D1 batch), each alert
      // stored only if this record wrote a row (they carry its token as released_token).
      const updates = jsonArrays(rows).map(statement)
      return atomic.run([...updates, ...alerts.map((alert) => insertRecordAlert(sql, alert, id, batch, token))]).pipe(
        Effect.map((answers) => answers.slice(0, updates.length).reduce((updated, done) => updated + done.length, 0)),
        unavailable("campaign.record")
      )
    },

    notePrevented: (id, count) =>
      sql<{ duplicates_prevented: number | string }>`UPDATE hookgate_campaigns
SET duplicates_prevented = duplicates_prevented + ${count} WHERE campaign_id = ${id}
RETURNING duplicates_prevented`.pipe(
        Effect.map((rows) => Number(rows[0]?.duplicates_prevented ?? 0)),
        unavailable("campaign.notePrevented")
      )
  }
  return store
})
