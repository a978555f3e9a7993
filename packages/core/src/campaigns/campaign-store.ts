import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { Alert } from "../alerts/alert.js"
import type { CampaignState, CampaignTemplate, Recipient } from "./campaign.js"
import type { StoreUnavailable } from "../kernel/store-errors.js"

/** A recipient whose send failed for good (`CampaignStore.failedRecipients`). */
export interface FailedRecipient {
  readonly seq: number
  readonly email: string
  readonly error: string | null
}

/** A campaign's own row (its recipients are ledger rows of their own). */
export interface CampaignRow {
  readonly id: string
  readonly template: CampaignTemplate
  readonly state: CampaignState
  /**
   * Its recipient list is complete: set by the create (or replace) that wrote it, in the
   * same atomic step as its last recipients. Until then it cannot start.
   */
  readonly sealed: boolean
  /** Recipients in the ledger (set when creation finishes). */
  readonly total: number
  readonly batchSize: number
  /** Batch slots, numbered from 1: `ceil(total / batchSize)`, fixed when creation finishes. */
  readonly batches: number
  readonly duplicatesPrevented: number
  readonly createdAt: number
  readonly updatedAt: number
}

/** The ledger rows as counted by status. */
export interface LedgerCounts {
  readonly queued: number
  readonly reserved: number
  readonly sent: number
  readonly failed: number
}

/** A recipient of a leased batch, as the ledger holds it. */
export interface BatchMember {
  readonly seq: number
  readonly email: string
  readonly vars: Readonly<Record<string, string>> | undefined
  /** Failed attempts recorded for this recipient so far. */
  readonly attempts: number
  /** A lease on this row expired unreleased, or an attempt ended `Unknown`: it may already be out. */
  readonly uncertain: boolean
  /**
   * An earlier attempt sent this batch one recipient at a time (its batch send was
   * rejected): it goes on that way, since the batch key now covers other members.
   */
  readonly solo: boolean
}

/** What a delivery of a batch message found when it tried to lease the batch. */
export type BatchReservation =
  /** Leased to this delivery: the members (in `seq` order) are fixed for every retry of the batch. */
  | { readonly _tag: "Leased"; readonly members: ReadonlyArray<BatchMember> }
  /** No such campaign. */
  | { readonly _tag: "NotFound" }
  /** The campaign is not running: no batch is leased until it is resumed. */
  | { readonly _tag: "NotRunning"; readonly state: CampaignState }
  /** Every member of the batch is already sent or failed: a redelivery. */
  | { readonly _tag: "Done"; readonly members: number }
  /** Another delivery holds a fresh lease on the batch until `until`. */
  | { readonly _tag: "InProgress"; readonly until: number }
  /** The slot was never reserved and no recipient is left to reserve. */
  | { readonly _tag: "Empty" }

/**
 * A draft as one create writes it: the token that create (or its replace) set on it. A
 * write naming a token the draft no longer carries (another create replaced it meanwhile)
 * changes nothing.
 */
export interface CampaignDraft {
  readonly campaignId: string
  readonly token: string
}

/** What `create` and `replace` write on a draft: its template and batch size, and the token of the create writing it. */
export interface DraftTerms {
  readonly id: string
  readonly template: CampaignTemplate
  readonly batchSize: number
  readonly now: number
  readonly token: string
}

/** The result of sending to one member, recorded with the batch's token. */
export interface MemberResult {
  readonly seq: number
  readonly outcome: "sent" | "failed" | "retry"
  readonly messageId?: string | undefined
  readonly error?: string | undefined
  /** A retry after an `Unknown` answer: the email may be out. */
  readonly uncertain?: boolean | undefined
  /** Sent one recipient at a time: later attempts go on that way. */
  readonly solo?: boolean | undefined
  /** A retry because the mailer is misconfigured (held): no attempt counted, never turned into a failure by the cap. */
  readonly held?: boolean | undefined
}

/**
 * The campaign ledger: one row per (campaign, recipient), reserved into
 * batches of at most `batchSize` whose membership never changes afterwards.
 * A batch is leased like an order: its rows carry the lease token, and every
 * write of a result is guarded by it.
 */
export interface CampaignStoreShape {
  /**
   * Creates the campaign as a draft, not sealed, carrying `token` (the create writing it), or
   * answers the existing row (`created: false`) unchanged.
   */
  readonly create: (
    campaign: DraftTerms
  ) => Effect.Effect<{ readonly created: boolean; readonly campaign: CampaignRow }, StoreUnavailable>
  /**
   * One atomic step, only while the campaign is a draft: its template and batch size become
   * these, it is no longer sealed, it carries `token` (whatever create was writing it before
   * writes nothing more), and every recipient row is deleted (then `addRecipients` streams
   * the new ones in and `seal` completes it).
   * None when there is no such campaign or it is past its draft (nothing changed).
   */
  readonly replace: (
    campaign: DraftTerms
  ) => Effect.Effect<Option.Option<CampaignRow>, StoreUnavailable>
  /**
   * One atomic step, only while the campaign is a draft carrying the draft's token: deletes
   * it and every recipient row (a create refused part way leaves nothing behind, and never
   * the draft of a create that replaced it). Answers whether it deleted it.
   */
  readonly discard: (draft: CampaignDraft) => Effect.Effect<boolean, StoreUnavailable>
  /**
   * Adds recipients to a draft from `firstSeq` on, while it carries the draft's token (else
   * nothing), skipping any already in the ledger (the same email, or the same position on a re-run).
   */
  readonly addRecipients: (
    draft: CampaignDraft,
    firstSeq: number,
    recipients: ReadonlyArray<Recipient>
  ) => Effect.Effect<void, StoreUnavailable>
  /**
   * One atomic step, only while the campaign is a draft carrying the draft's token: adds the
   * last `recipients` (as `addRecipients` from `firstSeq`; none for an empty list), counts
   * the ledger into `total`, fixes the batch slots and marks the list complete (`sealed`).
   * None when there is no such draft (another create replaced it, or it is gone).
   */
  readonly seal: (
    draft: CampaignDraft,
    last: { readonly now: number; readonly firstSeq: number; readonly recipients: ReadonlyArray<Recipient> }
  ) => Effect.Effect<Option.Option<CampaignRow>, StoreUnavailable>
  readonly get: (campaignId: string) => Effect.Effect<Option.Option<CampaignRow>, StoreUnavailable>
  readonly list: (options: { readonly limit: number }) => Effect.Effect<ReadonlyArray<CampaignRow>, StoreUnavailable>
  /**
   * One conditional write (`UPDATE … WHERE state IN (from) [AND a recipient is still queued or
   * reserved] [AND sealed with recipients]`): moves the campaign from one of `from` to `to`.
   * None when it was in none of them, or, with `whileOpen`, when nothing is left to send (a
   * `completed` campaign), or, with `whileSealed`, when its list is not complete or empty: of
   * two concurrent transitions from one state, exactly one applies.
   */
  readonly transition: (
    campaignId: string,
    options: {
      readonly from: ReadonlyArray<CampaignState>
      readonly to: CampaignState
      readonly now: number
      readonly whileOpen?: boolean
      readonly whileSealed?: boolean
    }
  ) => Effect.Effect<Option.Option<CampaignRow>, StoreUnavailable>
  readonly counts: (campaignId: string) => Effect.Effect<LedgerCounts, StoreUnavailable>
  /** The recipients whose send failed for good, in recipient order, up to `limit`, with the last error. */
  readonly failedRecipients: (
    campaignId: string,
    options: { readonly limit: number }
  ) => Effect.Effect<ReadonlyArray<FailedRecipient>, StoreUnavailable>
  /** Batch slots that still need a delivery: reserved and not yet sent, or never reserved. */
  readonly openBatches: (campaignId: string) => Effect.Effect<ReadonlyArray<number>, StoreUnavailable>
  /**
   * One statement: while the campaign is running, leases the reserved rows of
   * batch `batch` whose lease is free or expired, or, when the slot was never
   * used, reserves the next `size` queued recipients into it, leased. Anything
   * else is classified by a second read.
   */
  readonly reserve: (
    campaignId: string,
    batch: number,
    options: { readonly size: number; readonly token: string; readonly now: number; readonly until: number }
  ) => Effect.Effect<BatchReservation, StoreUnavailable>
  /**
   * One atomic step: records each member's result, if `token` still holds the
   * batch, and stores `alerts` (the batch's capped or failed alert, a possible
   * duplicate's) in the same step, only if the results were recorded: a crash
   * never leaves a recipient failed without its alert. `sent` and `failed` are
   * final; `retry` frees the row's lease with one more attempt counted (none when
   * `held`). Answers how many rows were written (0: the lease was lost, nothing stored).
   */
  readonly record: (
    campaignId: string,
    batch: number,
    token: string,
    results: ReadonlyArray<MemberResult>,
    now: number,
    alerts?: ReadonlyArray<Alert>
  ) => Effect.Effect<number, StoreUnavailable>
  /** Counts recipients of a redelivered batch answered without sending; answers the campaign's new total. */
  readonly notePrevented: (campaignId: string, count: number) => Effect.Effect<number, StoreUnavailable>
}

/** The campaign ledger: one row per campaign and recipient (in-memory, SQLite, D1). */
export class CampaignStore extends Context.Tag("@hookgate/core/CampaignStore")<CampaignStore, CampaignStoreShape>() {}
