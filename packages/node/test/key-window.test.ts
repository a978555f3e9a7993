import { describe, expect, it } from "@effect/vitest"
import { RetryPolicy } from "@hookgate/core"
import { KeyWindowExceeded, Mailer, type MailerShape } from "@hookgate/core/mail"
import { failureOf } from "@hookgate/testing"
import { Resend } from "@hookgate/mailer-resend"
import { ConfigProvider, Effect, Layer } from "effect"
import { GatewayConfig } from "../src/config/gateway-config.js"
import { layerDelivery } from "../src/gateway-layer.js"

// A mailer declaring Resend's window, standing in for Resend (no network in this test).
const resendLike: MailerShape = {
  name: "resend",
  honoursIdempotencyKeys: true,
  idempotencyKeyWindow: Resend.RESEND_KEY_WINDOW,
  send: () => Effect.die("not sent in this test")
}

const config = GatewayConfig.pipe(
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map([
    ["STRIPE_WEBHOOK_SECRET", "whsec_test"],
    ["HOOKGATE_ADMIN_TOKEN", "a-long-enough-admin-token-for-tests"],
    ["HOOKGATE_DB", ":memory:"]
  ])))
)

const build = (retryPolicy: Layer.Layer<RetryPolicy>) =>
  Effect.flatMap(config, (settings) =>
    Effect.scoped(Layer.build(layerDelivery(settings, { mailer: Layer.succeed(Mailer, resendLike), retryPolicy }))))

describe("the gateway's delivery layer against the mailer's key window", () => {
  it.effect("builds with the default policy and Resend's 24 hours", () => Effect.asVoid(build(RetryPolicy.layer())))

  it.effect("is refused, naming the figures, when the policy's attempts can outlast the window", () =>
    Effect.gen(function*() {
      const error = yield* failureOf(build(RetryPolicy.layer({ maxAttempts: 12 })))
      expect(error).toBeInstanceOf(KeyWindowExceeded)
      expect((error as KeyWindowExceeded).message).toMatch(/12 attempts can span [\d.]+ h, past resend's idempotency-key window of 24 h/)
    }))
})
