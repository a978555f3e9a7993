import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
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

/**
 * One payment as a provider's API lists it, for a provider that can say what was paid
 * but not rebuild its webhook's fulfilment: the order key its webhook would give, and
 * what tells the owner which order it is.
 */
export interface ListedPayment {
  /** The order key the provider's webhook gives (`creem:<order id>`). */
  readonly orderKey: string
  /** The listed object's id (a transaction's): the tie-break among payments made at the same instant. */
  readonly id: string
  /** When it was paid (epoch ms). */
  readonly created: number
  /** Whether it pays (an unpaid, refunded or failed one is skipped). */
  readonly paid: boolean
  /** The amount in minor units and its currency, when listed. */
  readonly amount?: number
  readonly currency?: string
  /** The product's id, when listed. */
  readonly product?: string
  /** The provider's customer id, for `emailOf`. */
  readonly customer?: string
}

/**
 * A provider that can list what was paid but cannot rebuild the whole fulfilment (Creem:
 * its API never gives a checkout's metadata). A run stores and sends nothing for it: it
 * tells the owner, once per order key, which paid orders hookgate never received.
 */
export interface DetectOnly {
  readonly _tag: "DetectOnly"
  /** The provider as the owner knows it (`Creem`), for the alert. */
  readonly label: string
  /** Why a listed order cannot be sent from the API, for the alert and the docs. */
  readonly reason: string
  /** Payments created at or after `since` (epoch ms), in any order; retries are the plugin's. */
  readonly list: (since: number) => Stream.Stream<ListedPayment, ReconcileError>
  /** The buyer's email of a payment hookgate does not know (one API call each), when the provider gives one. */
  readonly emailOf: (payment: ListedPayment) => Effect.Effect<Option.Option<string>, ReconcileError>
}

/** What a provider declares about reconciliation. */
export type Reconciliation = ReconcileSource | DetectOnly | CannotReconcile

/** A provider's listing, for `WebhookProvider.reconcile`. */
export const reconcileWith = (list: ReconcileSource["list"]): ReconcileSource => ({ _tag: "ReconcileSource", list })

/**
 * A provider's listing of what was paid, for `WebhookProvider.reconcile`, when its API
 * cannot rebuild the fulfilment: a run alerts the owner about paid orders hookgate does
 * not know, and never stores or sends them. `emailOf` defaults to none.
 */
export const reconcileDetectOnly = (options: {
  readonly label: string
  readonly reason: string
  readonly list: DetectOnly["list"]
  readonly emailOf?: DetectOnly["emailOf"]
}): DetectOnly => ({ _tag: "DetectOnly", emailOf: () => Effect.succeedNone, ...options })

/** A provider's declaration that it cannot reconcile, for `WebhookProvider.reconcile`. */
export const cannotReconcile = (reason: string): CannotReconcile => ({ _tag: "CannotReconcile", reason })
