import { startPostmarkTestServer } from "@hookgate/mailer-postmark/testing"
import { startSmtpTestServer } from "@hookgate/mailer-smtp/testing"
import { describe, expect, it } from "vitest"
import { waitFor } from "./support/acceptance.js"
import { ADMIN_TOKEN, baseEnv, postmarkEnv, smtpEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { admin } from "./support/webhooks.js"

/** A campaign through the gateway on each new mailer: Postmark's batch endpoint, SMTP's pool. */

const RECIPIENTS = 130
const template = { from: "Shop <news@shop.example>", subject: "Hello {{name}}", text: "Dear {{name}}, the sale starts today." }
const recipients = Array.from({ length: RECIPIENTS }, (_, i) => ({ email: `reader${i}@example.com`, vars: { name: `Reader ${i}` } }))

const runCampaign = async (url: string) => {
  const created = await admin(url, "/admin/campaigns", { method: "POST", body: JSON.stringify({ id: "launch", template, recipients }) }, ADMIN_TOKEN)
  expect(created.status).toBe(201)
  expect((await admin(url, "/admin/campaigns/launch/start", { method: "POST" }, ADMIN_TOKEN)).status).toBe(200)
  return waitFor(
    async () => (await admin(url, "/admin/campaigns/launch", {}, ADMIN_TOKEN)).body,
    (status) => status.sent === RECIPIENTS,
    "every recipient sent",
    60_000
  )
}

describe("campaigns through the new mailers", () => {
  it("Postmark: one email per recipient, in batches of up to 100 (POST /email/batch)", async () => {
    const postmark = await startPostmarkTestServer()
    const gateway = await startGateway({ ...baseEnv(tempDir()), ...postmarkEnv(postmark) })
    try {
      const status = await runCampaign(gateway.url)
      expect(status).toMatchObject({ total: RECIPIENTS, sent: RECIPIENTS, failed: 0, remaining: 0 })
      expect(new Set(postmark.emails.map((e) => e.to)).size).toBe(RECIPIENTS)
      expect(postmark.emails).toHaveLength(RECIPIENTS)
      expect(postmark.emails.every((e) => e.endpoint === "/email/batch")).toBe(true)
      expect(postmark.requests.filter((r) => r.path === "/email/batch")).toHaveLength(2)
    } finally {
      await gateway.stop()
      await postmark.close()
    }
  }, 120_000)

  it("SMTP: one message per recipient over the pool's connections, at most SMTP_POOL_SIZE of them", async () => {
    const smtp = await startSmtpTestServer({ security: "none" })
    const gateway = await startGateway({ ...baseEnv(tempDir()), ...smtpEnv(smtp), SMTP_POOL_SIZE: "3" })
    try {
      const status = await runCampaign(gateway.url)
      expect(status).toMatchObject({ total: RECIPIENTS, sent: RECIPIENTS, failed: 0, remaining: 0 })
      expect(smtp.messages).toHaveLength(RECIPIENTS)
      expect(new Set(smtp.messages.map((m) => m.to[0])).size).toBe(RECIPIENTS)
      expect(new Set(smtp.messages.map((m) => m.connection)).size).toBeLessThanOrEqual(3)
    } finally {
      await gateway.stop()
      await smtp.close()
    }
  }, 120_000)
})
