import * as Data from "effect/Data"
import type * as Stream from "effect/Stream"
import type { VerifiedEvent } from "./webhook.js"

/**
 * Reconciliation's side of a provider plugin: a way to list, at the provider's
 * API, the paying objects created since a time. Each is handed back as the
 * `VerifiedEvent` its webhook would carry (same id, type and payload), so the
 * plugin's one `fulfilment` decodes both and a pulled order and its webhook make
 * the same order key and the same fulfilment: one order, in either order.
 */

/** One object pulled from the provider, as its webhook's event, with when the provider created it. */
export interface PulledEvent {
  readonly event: VerifiedEvent
  /** When the provider created the object (epoch milliseconds): the cursor is the newest of these. */
  readonly created: number
}

/** Why a listing failed: the key (`auth`, naming the setting), the provider's API, or a page that does not decode. */
export type ReconcileFailure = "auth" | "unavailable" | "malformed"

/** A listing that could not finish. Never carries the key; names the setting that holds it. */
export class ReconcileError extends Data.TaggedError("ReconcileError")<{
  readonly provider: string
  readonly reason: ReconcileFailure
  readonly detail: string
  /** The setting holding the key (`STRIPE_API_KEY`), for an `auth` failure. */
  readonly setting?: string
  /** The provider's request id (Stripe's `Request-Id` header), when it gave one. */
  readonly requestId?: string
}> {
  override get message() {
    const setting = this.setting === undefined ? "" : ` (check ${this.setting})`
    const request = this.requestId === undefined ? "" : ` [request ${this.requestId}]`
    return `${this.provider} listing failed (${this.reason})${setting}: ${this.detail}${request}`
  }
}

/** A provider that can list what was paid. */
export interface ReconcileSource {
  readonly _tag: "ReconcileSource"
  /**
   * Paying objects created at or after `since` (epoch ms), in any order (the
   * reconciler reads the whole window, then takes it oldest first, by `created`
   * and then event id), as a stream of pages' events. Retries
   * of 429 and 5xx are the plugin's (on a `Schedule`); a failure ends the stream.
   * Unpaid objects may be included: `fulfilment` answers `None` for them.
   */
  readonly list: (since: number) => Stream.Stream<PulledEvent, ReconcileError>
}

/** A provider with no list API (Standard Webhooks): it says so, and why. */
export interface CannotReconcile {
  readonly _tag: "CannotReconcile"
  readonly reason: string
}

/** What a provider declares about reconciliation. */
export type Reconciliation = ReconcileSource | CannotReconcile

/** A provider's listing, for `WebhookProvider.reconcile`. */
export const reconcileWith = (list: ReconcileSource["list"]): ReconcileSource => ({ _tag: "ReconcileSource", list })

/** A provider's declaration that it cannot reconcile, for `WebhookProvider.reconcile`. */
export const cannotReconcile = (reason: string): CannotReconcile => ({ _tag: "CannotReconcile", reason })
