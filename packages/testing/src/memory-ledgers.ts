import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type BatchMember, type BatchReservation, type CampaignDraft, type CampaignRow, type CampaignStoreShape, type LedgerCounts } from "@hookgate/core/campaigns"
import type { CampaignState, CampaignTemplate, Recipient } from "@hookgate/core/campaigns"
import type { Alert } from "@hookgate/core/alerts"
import { type DeadLetter, type DeadLetterStoreShape, type MessageLedgerShape, MessageRecord } from "@hookgate/core/queue"
import { storeAlertOnce } from "./memory-alert-store.js"

/**
 * In-memory `MessageLedger`, `DeadLetterStore` and `CampaignStore` with the SQL
 * store's semantics: each operation reads and writes in one synchronous step,
 * as each SQL statement is atomic.
 */
export const memoryMessageLedger = (): MessageLedgerShape => {
  const rows = new Map<string, MessageRecord>()
  const set = (record: MessageRecord, changes: Partial<ConstructorParameters<typeof MessageRecord>[0]>) => {
    const next = new MessageRecord({ ...record, ...changes }, true)
    rows.set(record.key, next)
    return next
  }
  return ({
    acquire: (key, { now, token, until }) =>
      Effect.sync(() => {
        const row = rows.get(key)
        if (row === undefined) {
          rows.set(key, new MessageRecord({
            key,
            status: "pending",
            leaseToken: token,
            leaseExpiresAt: until,
            attempts: 0,
            lastError: null,
            runs: 1,
            duplicates: 0,
            createdAt: now,
            updatedAt: now,
            completedAt: null
          }, true))
          return { _tag: "Leased" as const, token, attempts: 0 }
        }
        const free = row.leaseToken === null || (row.leaseExpiresAt !== null && row.leaseExpiresAt <= now)
        if (row.status === "pending" && free) {
          set(row, { leaseToken: token, leaseExpiresAt: until, runs: row.runs + 1, updatedAt: now })
          return { _tag: "Leased" as const, token, attempts: row.attempts }
        }
        set(row, { duplicates: row.duplicates + 1 })
        return row.status === "completed"
          ? { _tag: "Completed" as const, completedAt: row.completedAt ?? row.updatedAt }
          : { _tag: "InProgress" as const, until: row.leaseExpiresAt ?? now }
      }),
    complete: (key, token, { now }) =>
      Effect.sync(() => {
        const row = rows.get(key)
        if (row === undefined || row.leaseToken !== token) return false
        set(row, { status: "completed", completedAt: now, leaseToken: null, leaseExpiresAt: null, lastError: null, updatedAt: now })
        return true
      }),
    release: (key, token, { error, now }) =>
      Effect.sync(() => {
        const row = rows.get(key)
        if (row === undefined || row.leaseToken !== token) return false
        set(row, { attempts: row.attempts + 1, lastError: error, leaseToken: null, leaseExpiresAt: null, updatedAt: now })
        return true
      }),
    get: (key) => Effect.sync(() => Option.fromNullable(rows.get(key))),
    prune: (before, { limit }) =>
      Effect.sync(() => {
        const gone = Array.from(rows.values()).filter((row) => completedBefore(row, before)).slice(0, limit)
        for (const row of gone) rows.delete(row.key)
        return gone.length
      }),
    prunable: (before) => Effect.sync(() => Array.from(rows.values()).filter((row) => completedBefore(row, before)).length)
  })
}

const completedBefore = (row: MessageRecord, before: number) =>
  row.status === "completed" && row.completedAt !== null && row.completedAt < before

export const memoryDeadLetters = (): DeadLetterStoreShape => {
  const letters = new Map<string, DeadLetter>()
  return ({
    put: (letter) =>
      Effect.sync(() => {
        const id = `${letter.queue}\u0000${letter.messageId}`
        if (!letters.has(id)) letters.set(id, letter)
        return Array.from(letters.values()).filter((l) => l.queue === letter.queue).length
      }),
    list: ({ limit, queue }) =>
      Effect.sync(() =>
        Array.from(letters.values())
          .filter((l) => queue === undefined || l.queue === queue)
          .sort((a, b) => b.receivedAt - a.receivedAt)
          .slice(0, limit)
      )
  })
}

interface RecipientRow {
  readonly seq: number
  readonly email: string
  readonly vars: Readonly<Record<string, string>> | undefined
  status: "queued" | "reserved" | "sent" | "failed"
  batch: number | null
  leaseToken: string | null
  leaseExpiresAt: number | null
  attempts: number
  uncertain: boolean
  solo: boolean
  lastError: string | null
  messageId: string | null
  sentAt: number | null
}

interface CampaignEntry {
  row: CampaignRow
  /** The create (or replace) writing the draft: `CampaignDraft.token`. */
  readonly token: string
  readonly recipients: Array<RecipientRow>
  readonly bySeq: Map<number, RecipientRow>
  readonly emails: Set<string>
  readonly batches: Map<number, Array<RecipientRow>>
  /** Recipients before this index in `recipients` (sorted by seq when sealed) are not queued. */
  cursor: number
}

/**
 * The in-memory campaign ledger. `alerts` is the alert map a record stores the
 * batch's alerts in, in the same synchronous step (pass an in-memory alert
 * store's, `memoryAlertsOf`, so that they are listed and retried).
 */
export const memoryCampaignStore = (alerts: Map<string, Alert> = new Map()): CampaignStoreShape => {
  const campaigns = new Map<string, CampaignEntry>()
  const update = (entry: CampaignEntry, changes: Partial<CampaignRow>) => (entry.row = { ...entry.row, ...changes })
  const member = (r: RecipientRow): BatchMember => ({
    seq: r.seq,
    email: r.email,
    vars: r.vars,
    attempts: r.attempts,
    uncertain: r.uncertain,
    solo: r.solo
  })
  // The draft `draft`'s create is writing, if no other create replaced it.
  const writing = (draft: CampaignDraft) => {
    const entry = campaigns.get(draft.campaignId)
    return entry !== undefined && entry.row.state === "draft" && entry.token === draft.token ? entry : undefined
  }
  const addRows = (draft: CampaignDraft, firstSeq: number, recipients: ReadonlyArray<Recipient>) => {
    const entry = writing(draft)
    if (!entry) return
    recipients.forEach((recipient, i) => {
      const seq = firstSeq + i
      if (entry.bySeq.has(seq) || entry.emails.has(recipient.email)) return
      const row: RecipientRow = {
        seq,
        email: recipient.email,
        vars: recipient.vars,
        status: "queued",
        batch: null,
        leaseToken: null,
        leaseExpiresAt: null,
        attempts: 0,
        uncertain: false,
        solo: false,
        lastError: null,
        messageId: null,
        sentAt: null
      }
      entry.recipients.push(row)
      entry.bySeq.set(seq, row)
      entry.emails.add(recipient.email)
    })
  }
  const leaseFree = (r: RecipientRow, now: number) =>
    r.leaseToken === null || (r.leaseExpiresAt !== null && r.leaseExpiresAt <= now)

  return ({
    create: ({ batchSize, id, now, template, token }) =>
      Effect.sync(() => {
        const existing = campaigns.get(id)
        if (existing) return { created: false, campaign: existing.row }
        const row: CampaignRow = {
          id,
          template: template as CampaignTemplate,
          state: "draft",
          sealed: false,
          total: 0,
          batchSize,
          batches: 0,
          duplicatesPrevented: 0,
          createdAt: now,
          updatedAt: now
        }
        campaigns.set(id, { row, token, recipients: [], bySeq: new Map(), emails: new Set(), batches: new Map(), cursor: 0 })
        return { created: true, campaign: row }
      }),
    replace: ({ batchSize, id, now, template, token }) =>
      Effect.sync(() => {
        const entry = campaigns.get(id)
        if (!entry || entry.row.state !== "draft") return Option.none()
        const row = update(entry, {
          template: template as CampaignTemplate,
          batchSize,
          sealed: false,
          total: 0,
          batches: 0,
          updatedAt: now
        })
        campaigns.set(id, { row, token, recipients: [], bySeq: new Map(), emails: new Set(), batches: new Map(), cursor: 0 })
        return Option.some(row)
      }),
    discard: (draft) =>
      Effect.sync(() => {
        const entry = writing(draft)
        if (!entry) return false
        campaigns.delete(draft.campaignId)
        return true
      }),
    addRecipients: (draft, firstSeq, recipients) => Effect.sync(() => addRows(draft, firstSeq, recipients)),
    // The last rows and the seal in one synchronous step, as SQL does in one atomic write.
    seal: (draft, { firstSeq, now, recipients }) =>
      Effect.sync(() => {
        addRows(draft, firstSeq, recipients)
        const entry = writing(draft)
        if (!entry) return Option.none()
        entry.recipients.sort((a, b) => a.seq - b.seq)
        const total = entry.recipients.length
        return Option.some(update(entry, { sealed: true, total, batches: Math.ceil(total / entry.row.batchSize), updatedAt: now }))
      }),
    get: (campaignId) => Effect.sync(() => Option.map(Option.fromNullable(campaigns.get(campaignId)), (e) => e.row)),
    list: ({ limit }) =>
      Effect.sync(() =>
        Array.from(campaigns.values()).map((e) => e.row).sort((a, b) => b.createdAt - a.createdAt).slice(0, limit)
      ),
    transition: (campaignId, { from, now, to, whileOpen, whileSealed }) =>
      Effect.sync(() => {
        const entry = campaigns.get(campaignId)
        if (!entry || !from.includes(entry.row.state)) return Option.none()
        if (whileSealed === true && (!entry.row.sealed || entry.row.total === 0)) return Option.none()
        if (whileOpen === true && !entry.recipients.some((r) => r.status === "queued" || r.status === "reserved")) {
          return Option.none()
        }
        return Option.some(update(entry, { state: to as CampaignState, updatedAt: now }))
      }),
    counts: (campaignId) =>
      Effect.sync((): LedgerCounts => {
        const counts = { queued: 0, reserved: 0, sent: 0, failed: 0 }
        for (const r of campaigns.get(campaignId)?.recipients ?? []) counts[r.status]++
        return counts
      }),
    failedRecipients: (campaignId, { limit }) =>
      Effect.sync(() =>
        (campaigns.get(campaignId)?.recipients ?? [])
          .filter((r) => r.status === "failed")
          .sort((a, b) => a.seq - b.seq)
          .slice(0, limit)
          .map((r) => ({ seq: r.seq, email: r.email, error: r.lastError }))
      ),
    openBatches: (campaignId) =>
      Effect.sync(() => {
        const entry = campaigns.get(campaignId)
        if (!entry) return []
        const open: Array<number> = []
        for (let n = 1; n <= entry.row.batches; n++) {
          const rows = entry.batches.get(n)
          if (rows === undefined || rows.some((r) => r.status === "reserved")) open.push(n)
        }
        return open
      }),
    reserve: (campaignId, batch, { now, size, token, until }) =>
      Effect.sync((): BatchReservation => {
        const entry = campaigns.get(campaignId)
        if (!entry) return { _tag: "NotFound" }
        if (entry.row.state !== "running") return { _tag: "NotRunning", state: entry.row.state }
        const rows = entry.batches.get(batch)
        if (rows === undefined) {
          const taken: Array<RecipientRow> = []
          while (taken.length < size && entry.cursor < entry.recipients.length) {
            const r = entry.recipients[entry.cursor++]!
            if (r.status === "queued") taken.push(r)
          }
          if (taken.length === 0) return { _tag: "Empty" }
          for (const r of taken) {
            r.status = "reserved"
            r.batch = batch
            r.leaseToken = token
            r.leaseExpiresAt = until
          }
          entry.batches.set(batch, taken)
          return { _tag: "Leased", members: taken.map(member) }
        }
        const open = rows.filter((r) => r.status === "reserved")
        if (open.length === 0) return { _tag: "Done", members: rows.length }
        const free = open.filter((r) => leaseFree(r, now))
        if (free.length === 0) return { _tag: "InProgress", until: Math.max(...open.map((r) => r.leaseExpiresAt ?? now)) }
        for (const r of free) {
          // Taking over a lease that was never released: its holder may have sent.
          if (r.leaseToken !== null) r.uncertain = true
          r.leaseToken = token
          r.leaseExpiresAt = until
        }
        return { _tag: "Leased", members: free.map(member) }
      }),
    record: (campaignId, batch, token, results, now, batchAlerts = []) =>
      Effect.sync(() => {
        const entry = campaigns.get(campaignId)
        const rows = entry?.batches.get(batch) ?? []
        let written = 0
        for (const result of results) {
          const r = rows.find((row) => row.seq === result.seq)
          if (r === undefined || r.leaseToken !== token || r.status !== "reserved") continue
          written++
          r.leaseToken = null
          r.leaseExpiresAt = null
          if (result.outcome === "sent") {
            r.status = "sent"
            r.messageId = result.messageId ?? null
            r.sentAt = now
            r.lastError = null
          } else if (result.outcome === "failed") {
            r.status = "failed"
            r.attempts++
            r.lastError = result.error ?? null
          } else {
            if (result.held !== true) r.attempts++
            r.lastError = result.error ?? null
            if (result.uncertain === true) r.uncertain = true
            if (result.solo === true) r.solo = true
          }
        }
        // Stored with the results they report, only if this record applied.
        if (written > 0) for (const alert of batchAlerts) storeAlertOnce(alerts, alert)
        return written
      }),
    notePrevented: (campaignId, count) =>
      Effect.sync(() => {
        const entry = campaigns.get(campaignId)
        if (!entry) return 0
        return update(entry, { duplicatesPrevented: entry.row.duplicatesPrevented + count }).duplicatesPrevented
      })
  })
}
