import { Providers, WebhookRequest } from "@hookgate/core/providers"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { createHmac } from "node:crypto"
import { vi } from "vitest"
import { GatewayConfig } from "../src/config/gateway-config.js"
import { layerProviders } from "../src/gateway-layer.js"

const STRIPE_SECRET = "whsec_gateway_hmac_stripe"
const CREEM_SECRET = "whsec_gateway_hmac_creem"

const config = Effect.withConfigProvider(
  GatewayConfig,
  ConfigProvider.fromMap(new Map([["STRIPE_WEBHOOK_SECRET", STRIPE_SECRET], ["CREEM_WEBHOOK_SECRET", CREEM_SECRET]]))
)

describe("the gateway's providers", () => {
  it.live("import their keys and verify on node:crypto, never calling Web Crypto", () =>
    Effect.gen(function*() {
      const importKey = vi.spyOn(crypto.subtle, "importKey")
      const sign = vi.spyOn(crypto.subtle, "sign")
      try {
        const registry = yield* Effect.provide(Providers, layerProviders(yield* config).pipe(Layer.orDie))
        const body = JSON.stringify({ id: "evt_gw", type: "charge.refunded", data: { object: { id: "ch_1" } } })
        const t = Math.floor(Date.now() / 1000)
        const v1 = createHmac("sha256", STRIPE_SECRET).update(`${t}.${body}`).digest("hex")
        const stripe = yield* registry.get("stripe")
        const event = yield* stripe.verify(WebhookRequest.fromParts(new TextEncoder().encode(body), { "stripe-signature": `t=${t},v1=${v1}` }))
        expect(event).toMatchObject({ provider: "stripe", id: "evt_gw" })
        const creemBody = JSON.stringify({ id: "evt_cr", eventType: "refund.created", object: {} })
        const creem = yield* registry.get("creem")
        const signature = createHmac("sha256", CREEM_SECRET).update(creemBody).digest("hex")
        const creemEvent = yield* creem.verify(WebhookRequest.fromParts(new TextEncoder().encode(creemBody), { "creem-signature": signature }))
        expect(creemEvent).toMatchObject({ provider: "creem", id: "evt_cr" })
        expect(importKey).not.toHaveBeenCalled()
        expect(sign).not.toHaveBeenCalled()
      } finally {
        importKey.mockRestore()
        sign.mockRestore()
      }
    }))
})
