import type { Alert } from "@hookgate/core/alerts"

const TITLES: Record<Alert["kind"], string> = {
  capped: "an order reached the attempt cap",
  failed: "an order was rejected by the mailer",
  possible_duplicate: "a buyer may have received two emails",
  mailer_quota: "the mailer refuses sends for now",
  mailer_misconfigured: "the mail account is misconfigured: nothing is sent",
  unfulfillable: "a paid event could not be turned into an order",
  dead_letter: "a queue message was given up",
  duplicates_spike: "many duplicate webhooks",
  webhooks_missing: "paid orders arrived only through reconciliation",
  orders_unsendable: "paid orders never reached hookgate and cannot be sent from the API",
  unknown: "an alert of a kind this release does not know"
}

/** One line, for a subject or a chat message. */
export const headline = (alert: Alert) =>
  alert.orderKey === null ? `${TITLES[alert.kind]}` : `${TITLES[alert.kind]}: ${alert.orderKey}`

/** The alert as plain text: what happened, then its fields. */
export const plainText = (alert: Alert) =>
  [
    alert.message,
    "",
    `kind:   ${alert.kind}`,
    ...(alert.orderKey === null ? [] : [`order:  ${alert.orderKey}`]),
    `alert:  ${alert.id}`,
    `raised: ${new Date(alert.createdAt).toISOString()}`,
    "",
    "hookgate stores every alert before sending it, so it stays readable if this message is lost."
  ].join("\n")
