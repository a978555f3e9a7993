import { startResendTestServer } from "@hookgate/mailer-resend/testing"
import { request } from "node:http"
import { describe, expect, it } from "vitest"
import { ADMIN_TOKEN, baseEnv, resendEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, deliver, signStripe, stripeBody } from "./support/webhooks.js"

/** Posts a body in chunks (no Content-Length) and reads the answer, or the error that cut it. */
const postChunked = (url: string, path: string, bytes: number) =>
  new Promise<{ status: number; body: string } | { error: string }>((resolve) => {
    const target = new URL(path, url)
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers: { "content-type": "application/json" } }, (res) => {
      let body = ""
      res.on("data", (chunk: Buffer) => (body += chunk.toString()))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on("error", (error) => resolve({ error: error.message }))
    const chunk = Buffer.alloc(16 * 1024, "a")
    let sent = 0
    const pump = () => {
      while (sent < bytes) {
        sent += chunk.length
        if (!req.write(chunk)) return void req.once("drain", pump)
      }
      req.end()
    }
    pump()
  })

describe("logs: one JSON object per line, nothing forged", () => {
  it("stdout is only JSON lines; an encoded newline in a path forges nothing; a failed send is a WARN with its error", async () => {
    const resend = await startResendTestServer()
    const gateway = await startGateway({
      ...baseEnv(tempDir()),
      HOST: "127.0.0.1",
      ...resendEnv(resend),
      HOOKGATE_METRICS_TOKEN: "metrics-token-for-tests"
    })
    try {
      expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      const forged = encodeURIComponent('x\n{"level":"ERROR","message":"forged"}\n')
      await fetch(`${gateway.url}/webhooks/${forged}`, { method: "POST", body: "{}" })
      await fetch(`${gateway.url}/nothing/${forged}`)
      resend.failNext(3, { status: 500, name: "internal_server_error", message: "scripted outage" })
      const signed = await signStripe(stripeBody("warn-log"))
      const answer = await deliver(gateway.url, signed)
      expect(answer.body.status).toBe("retry")
      // Stored times are integer epoch milliseconds, the jittered next attempt included.
      const { order } = (await admin(gateway.url, `/admin/orders/${encodeURIComponent(signed.orderKey)}`, {}, ADMIN_TOKEN)).body
      for (const field of ["nextAttemptAt", "createdAt", "updatedAt"]) expect(Number.isInteger(order[field]), field).toBe(true)

      // /metrics behind its own token.
      expect((await fetch(`${gateway.url}/metrics`)).status).toBe(401)
      expect((await fetch(`${gateway.url}/metrics`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401)
      const metrics = await fetch(`${gateway.url}/metrics`, { headers: { authorization: "Bearer metrics-token-for-tests" } })
      expect(metrics.status).toBe(200)
      expect((await admin(gateway.url, "/admin/stats", {}, ADMIN_TOKEN)).status).toBe(200)
      expect((await admin(gateway.url, "/admin/campaigns", {}, "metrics-token-for-tests")).status).toBe(401)

      await new Promise((resolve) => setTimeout(resolve, 300))
      const lines = gateway.stdout().split("\n").filter((line) => line !== "")
      expect(lines.length).toBeGreaterThan(3)
      const events = lines.map((line) => JSON.parse(line) as { message: unknown; logLevel: string; annotations: Record<string, unknown> })
      for (const event of events) expect(event.message).not.toBe("forged")
      const warn = events.find((e) => e.message === "send failed")
      expect(warn?.logLevel).toBe("WARN")
      expect(warn?.annotations).toMatchObject({ mailer: "resend", errorClass: "Transient" })
      expect(String(warn?.annotations.error)).toContain("scripted outage")
    } finally {
      await gateway.stop()
      await resend.close()
    }
  }, 180_000)

  it("a chunked body over the limit gets 413 too_large, not a cut connection", async () => {
    const gateway = await startGateway({ ...baseEnv(tempDir()), HOOKGATE_MAX_BODY: "65536" })
    try {
      const answer = await postChunked(gateway.url, "/webhooks/stripe", 1024 * 1024)
      expect(answer).toMatchObject({ status: 413 })
      expect(JSON.parse((answer as { body: string }).body).status).toBe("too_large")
    } finally {
      await gateway.stop()
    }
  }, 180_000)
})
