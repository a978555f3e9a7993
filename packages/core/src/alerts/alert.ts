import * as Schema from "effect/Schema"

/** What an alert is about. */
export const AlertKind = Schema.Literal(
  "capped",
  "failed",
  "possible_duplicate",
  "mailer_quota",
  "mailer_misconfigured",
  "unfulfillable",
  "dead_letter",
  "duplicates_spike",
  /** A reconciliation run found paid orders no webhook had brought. */
  "webhooks_missing",
  /** A reconciliation run found paid orders no webhook had brought that the provider's API cannot rebuild (Creem). */
  "orders_unsendable",
  /** A kind this release does not know, read from a row a newer release wrote. */
  "unknown"
)
export type AlertKind = typeof AlertKind.Type

/** Something the owner must hear about. Alerts are stored before they are attempted. */
export class Alert extends Schema.Class<Alert>("Alert")({
  id: Schema.String,
  kind: AlertKind,
  orderKey: Schema.NullOr(Schema.String),
  message: Schema.String,
  createdAt: Schema.Number,
  deliveredAt: Schema.NullOr(Schema.Number),
  deliveryError: Schema.NullOr(Schema.String),
  /** Delivery attempts recorded so far (0 until the first one ends). */
  attempts: Schema.optionalWith(Schema.Int, { default: () => 0 }),
  /**
   * When the sweep attempts it again (epoch ms), after a failed attempt; null once it is
   * delivered, before its first attempt, and after the last attempt the cap allows
   * (then it is left for the operator: `hookgate alerts list`, `GET /admin/alerts`).
   */
  nextAttemptAt: Schema.optionalWith(Schema.NullOr(Schema.Int), { default: () => null }),
  /** When an operator marked it resolved (epoch ms), null while it is open. */
  resolvedAt: Schema.optionalWith(Schema.NullOr(Schema.Int), { default: () => null }),
  /** The operator's note on resolving it. */
  resolutionNote: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
}) {}
