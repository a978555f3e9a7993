/** The fields of a transaction the tests vary; `undefined` keeps the default. */
export interface TransactionFields {
  readonly id: string
  readonly customerId: string
  readonly status?: "draft" | "ready" | "billed" | "paid" | "completed" | "canceled" | "past_due"
  /** In the currency's lowest denomination; written as Paddle writes it, a string. */
  readonly grandTotal?: number | string
  readonly currency?: string
  readonly productId?: string
  readonly customData?: Record<string, unknown> | null
}

const AT = "2025-10-09T08:53:20.000000Z"

/** The JSON body of a transaction event, shaped as Paddle's transaction entity has it (with fields hookgate ignores). */
export const transactionEvent = (
  eventId: string,
  type: "transaction.paid" | "transaction.completed" | "transaction.created" | "transaction.updated" | "transaction.payment_failed",
  transaction: TransactionFields
): string => {
  const total = String(transaction.grandTotal ?? 2900)
  const currency = transaction.currency ?? "USD"
  const status = transaction.status ?? (type === "transaction.paid" ? "paid" : type === "transaction.completed" ? "completed" : "ready")
  const totals = {
    subtotal: total,
    tax: "0",
    discount: "0",
    total,
    grand_total: total,
    fee: null,
    earnings: null,
    currency_code: currency,
    credit: "0",
    credit_to_balance: "0",
    balance: "0"
  }
  return JSON.stringify({
    event_id: eventId,
    event_type: type,
    occurred_at: AT,
    notification_id: "ntf_01h8bkrfe7w1vwf8xmytwn51e7",
    data: {
      id: transaction.id,
      status,
      customer_id: transaction.customerId,
      address_id: "add_01h8bkrfe7w1vwf8xmytwn51e9",
      business_id: null,
      custom_data: transaction.customData === undefined ? null : transaction.customData,
      origin: "web",
      collection_mode: "automatic",
      subscription_id: null,
      invoice_id: null,
      invoice_number: null,
      billing_details: null,
      billing_period: null,
      currency_code: currency,
      discount_id: null,
      created_at: AT,
      updated_at: AT,
      billed_at: AT,
      items: [{
        price_id: "pri_01h8bkrfe7w1vwf8xmytwn51ea",
        price: {
          id: "pri_01h8bkrfe7w1vwf8xmytwn51ea",
          description: "One course",
          product_id: transaction.productId ?? "pro_01h8bkrfe7w1vwf8xmytwn51eb",
          billing_cycle: null,
          trial_period: null,
          tax_mode: "account_setting",
          unit_price: { amount: total, currency_code: currency },
          quantity: { minimum: 1, maximum: 1 },
          status: "active"
        },
        quantity: 1,
        proration: null
      }],
      details: {
        tax_rates_used: [],
        totals,
        adjusted_totals: { ...totals, fee: "0", earnings: "0" },
        payout_totals: null,
        adjusted_payout_totals: null,
        line_items: []
      },
      payments: [],
      checkout: { url: "https://example.com/pay?_ptxn=" + transaction.id }
    }
  })
}

/** The JSON body of any other Paddle event. */
export const paddleEvent = (eventId: string, type: string, data: Record<string, unknown> = {}): string =>
  JSON.stringify({ event_id: eventId, event_type: type, occurred_at: AT, notification_id: "ntf_01h8bkrfe7w1vwf8xmytwn51e8", data })
