// The README's one-line mailer swap as an app runs it: the same `Shop` on Postmark and on
// SMTP (each against its package's stand-in), fed a Lemon Squeezy order that the README's
// layer mounts because its secret is set.
import { receive } from "@hookgate/core"
import { startPostmarkTestServer } from "@hookgate/mailer-postmark/testing"
import { startSmtpTestServer } from "@hookgate/mailer-smtp/testing"
import { orderEvent, signLemonSqueezyRequest } from "@hookgate/provider-lemonsqueezy/testing"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { expect, it } from "vitest"
import { HookgateOnPostmark, HookgateOnSmtp } from "../snippets/readme.js"

const SECRET = "consumer-app-lemonsqueezy"

const sendOnce = async <E>(layer: Layer.Layer<any, E, never>, orderId: string) => {
  const runtime = ManagedRuntime.make(layer)
  try {
    const request = await Effect.runPromise(signLemonSqueezyRequest(SECRET, orderEvent({ orderId, email: `${orderId}@example.com` })))
    const first = await runtime.runPromise(receive("lemonsqueezy", request))
    const again = await runtime.runPromise(receive("lemonsqueezy", request))
    return [first._tag, again._tag]
  } finally {
    await runtime.dispose() // closes the SMTP pool
  }
}

it("the Shop on Postmark: one email for a Lemon Squeezy order, its retry a duplicate", async () => {
  const postmark = await startPostmarkTestServer()
  try {
    Object.assign(process.env, {
      LEMONSQUEEZY_WEBHOOK_SECRET: SECRET,
      POSTMARK_SERVER_TOKEN: postmark.serverToken,
      POSTMARK_BASE_URL: postmark.url,
      HOOKGATE_OWNER_EMAIL: "owner@shop.example",
      HOOKGATE_FROM: "hookgate@shop.example"
    })
    expect(await sendOnce(HookgateOnPostmark, "91001")).toEqual(["Sent", "Duplicate"])
    expect(postmark.emails.map((e) => e.to)).toEqual(["91001@example.com"])
  } finally {
    await postmark.close()
  }
})

it("the Shop on SMTP: one message for a Lemon Squeezy order, its retry a duplicate", async () => {
  const smtp = await startSmtpTestServer({ security: "none" })
  try {
    Object.assign(process.env, {
      LEMONSQUEEZY_WEBHOOK_SECRET: SECRET,
      SMTP_HOST: smtp.host,
      SMTP_PORT: String(smtp.port),
      SMTP_SECURITY: "none",
      SMTP_USER: smtp.mailerOptions.auth!.user,
      SMTP_PASSWORD: Redacted.value(smtp.mailerOptions.auth!.password),
      HOOKGATE_OWNER_EMAIL: "owner@shop.example",
      HOOKGATE_FROM: "hookgate@shop.example"
    })
    expect(await sendOnce(HookgateOnSmtp, "91002")).toEqual(["Sent", "Duplicate"])
    expect(smtp.messages.map((m) => m.to)).toEqual([["91002@example.com"]])
  } finally {
    await smtp.close()
  }
})
