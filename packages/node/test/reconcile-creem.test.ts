import { startResendTestServer, type ResendTestServerShape } from "@hookgate/mailer-resend/testing"
import { checkoutCompletedEvent, type CreemTransactionsServer, startCreemTransactionsServer } from "@hookgate/provider-creem/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, type GatewayProcess, resendEnv, runCli, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, deliver, signCreem } from "./support/webhooks.js"

/**
 * Creem's detect-only reconciliation over real processes: `hookgate serve` with
 * CREEM_API_KEY on Creem's transactions-search stand-in, emails counted by Resend's
 * test server. The tests run in order and share the processes.
 */

let creem: CreemTransactionsServer
let resend: ResendTestServerShape
let gateway: GatewayProcess
let env: Record<string, string>

const paid = (n: string, status = "paid") =>
  creem.addTransaction({
    id: `tran_${n}`,
    status,
    order: `ord_${n}`,
    customer: `cust_${n}`,
    amount: 2500,
    currency: "EUR",
    created_at: Date.now() - 60_000
  }, `${n}@example.com`)

const metric = async (name: string, label: string) => {
  const text = await (await fetch(`${gateway.url}/metrics`)).text()
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(label))
  return line === undefined ? 0 : Number(line.split(" ").at(-1))
}

beforeAll(async () => {
  creem = await startCreemTransactionsServer()
  resend = await startResendTestServer()
  env = { ...baseEnv(tempDir()), ...resendEnv(resend), CREEM_API_KEY: creem.apiKey, CREEM_API_BASE: creem.url, HOOKGATE_RECONCILE_EVERY: "1h" }
  gateway = await startGateway(env)
  // serve's own run at start (nothing listed yet) must not race the tests' runs.
  const deadline = Date.now() + 60_000
  while (!/"message":"reconciled"/.test(gateway.stdout()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
}, 90_000)

afterAll(async () => {
  await gateway?.stop()
  await resend?.close()
  await creem?.close()
})

describe("Creem reconciliation over real processes: detect, alert, send nothing", () => {
  it("one order delivered by webhook, two never were, one pending: the owner hears of the two, once; no email is sent for them", async () => {
    for (const n of ["hooked", "lost_a", "lost_b"]) paid(n)
    paid("pending", "pending")
    const hooked = await deliver(gateway.url, await signCreem(checkoutCompletedEvent("evt_hooked", { orderId: "ord_hooked", email: "hooked@example.com" })))
    expect(hooked.body.status).toBe("sent")

    const run = await admin(gateway.url, "/admin/reconcile", { method: "POST" })
    expect(run.status).toBe(200)
    expect(run.body.providers).toEqual([
      expect.objectContaining({ provider: "creem", seen: 4, known: 1, new: 0, unpaid: 1, unsendable: 2, alerted: 2, error: null })
    ])
    expect(resend.emails).toHaveLength(1)
    const alerts = (await admin(gateway.url, "/admin/alerts")).body.alerts as Array<{ kind: string; message: string }>
    const unsendable = alerts.filter((a) => a.kind === "orders_unsendable").map((a) => a.message)
    expect(unsendable).toHaveLength(1)
    expect(unsendable[0]).toMatch(
      /^2 paid Creem orders never reached hookgate by webhook and cannot be sent from the API \(their checkout metadata is not available\): resend their webhooks from Creem's dashboard, or fulfil them by hand: /
    )
    expect(unsendable[0]).toContain("creem:ord_lost_a (lost_a@example.com, 2500 EUR)")
    expect(unsendable[0]).toContain("creem:ord_lost_b (lost_b@example.com, 2500 EUR)")
    expect(await metric("hookgate_alerts_total", 'kind="orders_unsendable"')).toBe(1)
    expect(await metric("hookgate_reconciled_objects_total", 'outcome="unsendable"')).toBe(2)
    const orders = (await admin(gateway.url, "/admin/orders?limit=100")).body.orders as Array<{ key: string }>
    expect(orders.map((o) => o.key)).toEqual(["creem:ord_hooked"])
  }, 120_000)

  it("the next run, from the CLI, names nobody again; the webhook resent from Creem's dashboard then sends the email once", async () => {
    const second = await runCli(env, ["reconcile"])
    expect(second.code, second.stderr).toBe(0)
    // provider, seen, known, new, unpaid, unfulfillable, unsendable, alerted
    expect(second.stdout).toMatch(/^creem\s+4\s+1\s+0\s+1\s+0\s+2\s+0\s/m)
    const alerts = (await admin(gateway.url, "/admin/alerts")).body.alerts as Array<{ kind: string }>
    expect(alerts.filter((a) => a.kind === "orders_unsendable")).toHaveLength(1)
    const resent = await deliver(gateway.url, await signCreem(checkoutCompletedEvent("evt_lost_a", { orderId: "ord_lost_a", email: "lost_a@example.com" })))
    expect(resent.body.status).toBe("sent")
    expect(resend.emails).toHaveLength(2)
  }, 120_000)

  it("a wrong key: exit non-zero naming CREEM_API_KEY, the key never printed", async () => {
    const key = "creem_test_revoked_key_that_must_never_be_printed_77"
    const refused = await runCli({ ...env, CREEM_API_KEY: key }, ["reconcile", "--since", "72h"])
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain("CREEM_API_KEY")
    expect(refused.stdout + refused.stderr).not.toContain(key)
    expect(refused.stdout + refused.stderr).not.toContain(key.slice(-12))
  }, 60_000)
})
