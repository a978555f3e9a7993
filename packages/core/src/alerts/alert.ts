import { Schema } from "effect"

/** What an alert is about. */
export const AlertKind = Schema.Literal(
  "capped",
  "failed",
  "possible_duplicate",
  "mailer_quota",
  "mailer_misconfigured",
  "unfulfillable",
  "dead_letter",
  "duplicates_spike"
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
  deliveryError: Schema.NullOr(Schema.String)
}) {}
