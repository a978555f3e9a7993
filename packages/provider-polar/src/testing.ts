import { signStandardRequest, type SignOptions } from "@hookgate/provider-standard/testing"
import type * as Redacted from "effect/Redacted"

/**
 * @hookgate/provider-polar/testing: sign messages as Polar does (Standard
 * Webhooks, the secret's UTF-8 bytes as the key), and build the events hookgate
 * reads, for tests and demos.
 */

type Secret = Redacted.Redacted<string> | string

/** Options of `signPolarRequest`: as Standard Webhooks', with Polar's secret format fixed. */
export type PolarSignOptions = Omit<SignOptions, "secretFormat" | "headers">

/** A request carrying `body` as Polar would send it: `webhook-id`, `webhook-timestamp`, `webhook-signature`. */
export const signPolarRequest = (secret: Secret, body: string | Uint8Array, options: PolarSignOptions = {}) =>
  signStandardRequest(secret, body, { ...options, secretFormat: "raw" })

/** The fields of an order the tests vary. */
export interface OrderFields {
  readonly orderId: string
  readonly status?: "pending" | "paid" | "refunded" | "partially_refunded"
  readonly email?: string
  readonly totalAmount?: number
  readonly currency?: string
  readonly productId?: string | null
  readonly metadata?: Record<string, string | number | boolean>
}

const AT = "2025-10-09T08:53:20.000000Z"

/** The JSON body of an order event (`order.paid` by default), shaped as Polar's Order schema has it. */
export const orderEvent = (order: OrderFields, type = "order.paid"): string => {
  const total = order.totalAmount ?? 2900
  const status = order.status ?? "paid"
  const productId = order.productId === undefined ? "9b1c52a6-2f0e-4f6c-9a4f-5d1f6e2c9a11" : order.productId
  return JSON.stringify({
    type,
    timestamp: AT,
    data: {
      id: order.orderId,
      created_at: AT,
      modified_at: AT,
      status,
      paid: status !== "pending",
      subtotal_amount: total,
      discount_amount: 0,
      net_amount: total,
      tax_amount: 0,
      total_amount: total,
      applied_balance_amount: 0,
      due_amount: 0,
      refunded_amount: 0,
      refunded_tax_amount: 0,
      currency: order.currency ?? "usd",
      billing_reason: "purchase",
      billing_name: "Ada Buyer",
      billing_address: null,
      invoice_number: "ACME-0001",
      receipt_number: null,
      description: "Course",
      refundable_amount: total,
      refundable_tax_amount: 0,
      platform_fee_currency: null,
      is_invoice_generated: false,
      customer_id: "4c7d8e2f-0b1a-4e5d-9c3b-2a1f0e9d8c7b",
      product_id: productId,
      discount_id: null,
      subscription_id: null,
      checkout_id: null,
      metadata: order.metadata ?? {},
      custom_field_data: {},
      platform_fee_amount: 0,
      customer: {
        id: "4c7d8e2f-0b1a-4e5d-9c3b-2a1f0e9d8c7b",
        created_at: AT,
        modified_at: AT,
        metadata: {},
        external_id: null,
        email: order.email ?? "buyer@example.com",
        type: "individual",
        billing_name: null,
        email_verified: true,
        name: "Ada Buyer",
        billing_address: null,
        tax_id: null,
        organization_id: "0e7b6a5c-4d3e-2f1a-0b9c-8d7e6f5a4b3c",
        deleted_at: null,
        avatar_url: null
      },
      user_id: "4c7d8e2f-0b1a-4e5d-9c3b-2a1f0e9d8c7b",
      product: null,
      discount: null,
      subscription: null,
      items: []
    }
  })
}

/** The JSON body of any other Polar event. */
export const polarEvent = (type: string, data: Record<string, unknown> = {}): string => JSON.stringify({ type, timestamp: AT, data })
