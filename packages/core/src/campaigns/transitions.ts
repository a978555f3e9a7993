import * as EpochMillis from "../kernel/EpochMillis.js"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { CampaignState } from "./campaign.js"
import { type CampaignRow, CampaignStore } from "./campaign-store.js"
import { CampaignNotFound, CampaignStateError } from "./errors.js"

/** A campaign's state as `status` shows it: the stored three, and `completed` (running with nothing left to send). */
export type ShownState = CampaignState | "completed"

/** The operations that move a campaign. */
export type CampaignOperation = "start" | "pause" | "resume"

/** One operation of the state machine. */
export interface CampaignTransition {
  /** The stored states it moves the campaign from, in one conditional write. */
  readonly from: ReadonlyArray<CampaignState>
  readonly to: CampaignState
  /** Only while a recipient is still queued or reserved: a `completed` campaign is refused. */
  readonly whileOpen: boolean
  /** Only once its recipient list is complete (`sealed`) and not empty. */
  readonly whileSealed: boolean
  /** Already where the operation leads: answered as it is, nothing changed (a repeat is harmless). */
  readonly unchanged: ReadonlyArray<ShownState>
  /** Every other state refuses it (`CampaignStateError`, 409), saying why and what to do instead. */
  readonly refused: Readonly<Partial<Record<ShownState, string>>>
}

/**
 * The campaign state machine; every shown state is in exactly one of `from`, `unchanged`
 * and `refused` of each operation.
 *
 * | operation | draft | running | paused | completed |
 * | --- | --- | --- | --- | --- |
 * | start | → running (once its list is complete, never empty) | 409 | 409 (resume it) | 409 |
 * | pause | 409 (not started) | → paused | 200, unchanged | 409 |
 * | resume | 409 (start it) | 409 (not paused) | → running | 409 |
 *
 * A repeated pause is harmless (an operator stopping a campaign from two places);
 * a second start or resume is refused, so that of two concurrent ones exactly one wins.
 */
export const campaignTransitions: Readonly<Record<CampaignOperation, CampaignTransition>> = {
  start: {
    from: ["draft"],
    to: "running",
    whileOpen: false,
    whileSealed: true,
    unchanged: [],
    refused: {
      running: "it is already running",
      paused: "it is paused: resume it instead",
      completed: "it has finished: every recipient was sent to or failed"
    }
  },
  pause: {
    from: ["running"],
    to: "paused",
    whileOpen: true,
    whileSealed: false,
    unchanged: ["paused"],
    refused: {
      draft: "it has not started",
      completed: "it has finished: nothing is left to send"
    }
  },
  resume: {
    from: ["paused"],
    to: "running",
    whileOpen: false,
    whileSealed: false,
    unchanged: [],
    refused: {
      draft: "it has not started: start it instead",
      running: "it is not paused",
      completed: "it has finished: nothing is left to send"
    }
  }
}

/** The state `status` shows: `completed` for a running campaign with nothing queued or reserved. */
export const shownState = (state: CampaignState, counts: { readonly queued: number; readonly reserved: number }): ShownState =>
  state === "running" && counts.queued === 0 && counts.reserved === 0 ? "completed" : state

/** Why a draft cannot start yet, if it cannot: its list is still being written, or empty. */
const unstartableDraft = (row: CampaignRow): string | undefined =>
  !row.sealed
    ? "its recipient list is still being written: start it once its create has finished " +
      "(a create that was cut short never finishes: create it again with ?replace=true or --replace)"
    : row.total === 0
    ? "it has no recipients: create it again with its list (POST /admin/campaigns?replace=true)"
    : undefined

/**
 * Applies `operation` to the campaign: `moved` when this call changed its state (of
 * concurrent callers, one), `unchanged` for a harmless repeat; otherwise
 * `CampaignStateError` or `CampaignNotFound`, and nothing changed.
 */
export const transitionCampaign = (campaignId: string, operation: CampaignOperation) =>
  Effect.gen(function*() {
    const store = yield* CampaignStore
    const rule = campaignTransitions[operation]
    // A refused write is classified by a read; a campaign that moved back into `from` in
    // between (another operator's resume, say) is tried again.
    for (let attempt = 0;; attempt++) {
      const now = yield* EpochMillis.now
      const moved = yield* store.transition(campaignId, {
        from: rule.from,
        to: rule.to,
        now,
        whileOpen: rule.whileOpen,
        whileSealed: rule.whileSealed
      })
      if (Option.isSome(moved)) return "moved" as const
      const row = yield* store.get(campaignId)
      if (Option.isNone(row)) return yield* new CampaignNotFound({ campaignId })
      const state = shownState(row.value.state, yield* store.counts(campaignId))
      if (rule.unchanged.includes(state)) return "unchanged" as const
      const unstartable = rule.whileSealed && state === "draft" ? unstartableDraft(row.value) : undefined
      const reason = unstartable ?? rule.refused[state] ?? (attempt < 3 ? undefined : "it is changing under other operators: try again")
      if (reason !== undefined) return yield* new CampaignStateError({ campaignId, state, operation, reason })
    }
  })
