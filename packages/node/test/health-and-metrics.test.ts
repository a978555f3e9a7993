import { startResendTestServer } from "@hookgate/mailer-resend/testing"
import { PgTestServer } from "@hookgate/store-pg/testing"
import { describe, expect, it } from "vitest"
import { ADMIN_TOKEN, baseEnv, resendEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { deliver, post, signStripe, stripeBody } from "./support/webhooks.js"

/**
 * What a load balancer and Prometheus see: `/readyz` follows the store, `/healthz` the
 * process; an outage is one WARN line with its cause (and one line when it ends), not
 * one per request; `/metrics` carries the store's state and a bounded set of series.
 */

const logLines = (stdout: string) =>
  stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>)

const get = async (url: string, init: RequestInit = {}) => {
  const response = await fetch(url, init)
  const text = await response.text()
  return { status: response.status, text }
}

const until = async (check: () => Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return false
}

describe("readiness and the store's outages", () => {
  it("/readyz answers 503 unavailable while Postgres is down (/healthz stays 200); the outage is logged once at WARN with its cause, and its end once", async () => {
    const postgres = await PgTestServer.start()
    const gateway = await startGateway({
      ...baseEnv(tempDir()),
      HOOKGATE_DATABASE_URL: await postgres.createDatabase("outage"),
      HOOKGATE_DB_CONNECT_TIMEOUT: "2 seconds",
      HOOKGATE_DB_STATEMENT_TIMEOUT: "2 seconds",
      HOOKGATE_SWEEP_EVERY: "1 hour"
    }, { args: ["serve"] }, 75_000)
    try {
      expect(await get(`${gateway.url}/readyz`)).toEqual({ status: 200, text: JSON.stringify({ status: "ready" }) })
      expect((await deliver(gateway.url, await signStripe(stripeBody("before-outage")))).body.status).toBe("sent")

      await postgres.stop()
      for (let i = 0; i < 3; i++) {
        const answer = await deliver(gateway.url, await signStripe(stripeBody(`during-outage-${i}`)))
        expect(answer).toMatchObject({ status: 503, body: { status: "unavailable" } })
      }
      expect(await get(`${gateway.url}/readyz`)).toEqual({ status: 503, text: JSON.stringify({ status: "unavailable" }) })
      expect((await get(`${gateway.url}/healthz`)).status).toBe(200)

      await postgres.restart()
      expect(await until(async () => (await get(`${gateway.url}/readyz`)).status === 200, 30_000)).toBe(true)
      expect((await deliver(gateway.url, await signStripe(stripeBody("after-outage")))).body.status).toBe("sent")

      const lines = logLines(gateway.stdout())
      const down = lines.filter((l) => l.message === "store unavailable")
      expect(down, JSON.stringify(down)).toHaveLength(1)
      // The cause goes down to the driver's own words (the refused connection), never the URL.
      expect(down[0]).toMatchObject({ logLevel: "WARN", annotations: { cause: expect.stringMatching(/ECONNREFUSED|connect/i) } })
      expect(JSON.stringify(down[0])).not.toContain("postgres://")
      const back = lines.filter((l) => l.message === "store available again")
      expect(back).toHaveLength(1)
      expect(back[0]).toMatchObject({ logLevel: "INFO", annotations: { failedCalls: expect.any(Number) } })
      expect(Number((back[0]!.annotations as Record<string, unknown>).failedCalls)).toBeGreaterThanOrEqual(4)
    } finally {
      await gateway.stop()
      await postgres.dispose()
    }
  }, 180_000)
})

describe("/metrics", () => {
  it("has gauges for orders by status, due orders and undelivered alerts, read from the store when scraped", async () => {
    const resend = await startResendTestServer()
    const gateway = await startGateway({
      ...baseEnv(tempDir()),
      ...resendEnv(resend),
      HOOKGATE_SWEEP_EVERY: "1 hour",
      // A failed send is due again at once, so the gauge has a due order to count.
      HOOKGATE_RETRY_BACKOFF: "0",
      // The alert of a failed order cannot be delivered: nothing listens on port 9.
      HOOKGATE_ALERT_WEBHOOK_URL: "http://127.0.0.1:9/alerts",
      HOOKGATE_ALERT_WEBHOOK_TIMEOUT: "1 second"
    })
    try {
      // The value of the series `name` with the label `label` (the exporter adds otel_scope_name).
      const metric = async (name: string, label = "") => {
        const text = (await get(`${gateway.url}/metrics`)).text
        const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(label))
        return line === undefined ? undefined : Number(line.split(" ").at(-1))
      }
      expect(await metric("hookgate_store_up")).toBe(1)
      expect(await metric("hookgate_orders", 'status="sent"')).toBe(0)

      expect((await deliver(gateway.url, await signStripe(stripeBody("sent-one")))).body.status).toBe("sent")
      resend.failNext(1, { status: 422, name: "validation_error", message: "scripted rejection" })
      expect((await deliver(gateway.url, await signStripe(stripeBody("failed-one")))).body.status).toBe("failed")
      resend.failNext(10, { status: 500, name: "application_error", message: "scripted outage" })
      expect((await deliver(gateway.url, await signStripe(stripeBody("pending-one")))).status).toBe(500)

      expect(await metric("hookgate_orders", 'status="sent"')).toBe(1)
      expect(await metric("hookgate_orders", 'status="failed"')).toBe(1)
      expect(await metric("hookgate_orders", 'status="pending"')).toBe(1)
      expect(await metric("hookgate_orders", 'status="capped"')).toBe(0)
      expect(await metric("hookgate_orders_due")).toBe(1)
      expect(await metric("hookgate_alerts_undelivered")).toBeGreaterThanOrEqual(1)
    } finally {
      await gateway.stop()
      await resend.close()
    }
  }, 120_000)

  it("counts every webhook to a provider that is not mounted under one label value, however many names are tried", async () => {
    const gateway = await startGateway({ ...baseEnv(tempDir()), HOOKGATE_SWEEP_EVERY: "1 hour" })
    try {
      for (const name of ["rand_a1", "rand_b2", "rand_c3", "rand_d4"]) {
        expect((await post(gateway.url, `/webhooks/${name}`, { body: "{}", headers: {} })).status).toBe(404)
      }
      const text = (await get(`${gateway.url}/metrics`)).text
      const series = text.split("\n").filter((l) => l.startsWith("hookgate_webhooks_total{"))
      expect(series.filter((l) => l.includes('outcome="UnknownProvider"'))).toEqual([
        expect.stringMatching(/provider="unknown".* 4$/)
      ])
      expect(text).not.toContain("rand_")
    } finally {
      await gateway.stop()
    }
  }, 60_000)
})

describe("/metrics off, as by default", () => {
  it("has no /metrics route without HOOKGATE_METRICS, and the banner says how to turn it on", async () => {
    const { HOOKGATE_METRICS: _, ...env } = baseEnv(tempDir())
    const gateway = await startGateway({ ...env, HOOKGATE_SWEEP_EVERY: "1 hour" })
    try {
      expect((await get(`${gateway.url}/metrics`)).status).toBe(404)
      expect((await get(`${gateway.url}/healthz`)).status).toBe(200)
      expect(gateway.output()).toMatch(/metrics +off \(set HOOKGATE_METRICS=prometheus\)/)
    } finally {
      await gateway.stop()
    }
  }, 60_000)
})

describe("the admin token", () => {
  it("is taken with the scheme in lower case (`bearer <token>`) by the running gateway", async () => {
    const gateway = await startGateway({ ...baseEnv(tempDir()), HOOKGATE_SWEEP_EVERY: "1 hour" })
    try {
      const answer = await get(`${gateway.url}/admin/stats`, { headers: { authorization: `bearer ${ADMIN_TOKEN}` } })
      expect(answer.status).toBe(200)
      expect(JSON.parse(answer.text)).toMatchObject({ orders: { sent: 0 } })
      expect((await get(`${gateway.url}/admin/stats`, { headers: { authorization: `bearer ${ADMIN_TOKEN}x` } })).status).toBe(401)
    } finally {
      await gateway.stop()
    }
  }, 60_000)
})
