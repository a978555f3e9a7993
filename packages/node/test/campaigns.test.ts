import { readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { ADMIN_TOKEN, baseEnv, runCli, startGateway, tempDir } from "./support/gateway-process.js"
import { outboxFileName } from "@hookgate/node"
import { admin } from "./support/webhooks.js"

const template = { from: "Shop <news@shop.example>", subject: "Hello {{name}}", text: "Dear {{name}}, the sale starts today." }

/** The campaign emails in the outbox: one `.eml` per key (a second send under one key would add `~2.eml`). */
const campaignEmails = (outbox: string, id: string) =>
  readdirSync(outbox).filter((file) => file.startsWith(outboxFileName(`hookgate/campaign/${id}/`)))

const eventually = async <A>(read: () => Promise<A>, check: (a: A) => boolean): Promise<A> => {
  for (let i = 0; i < 300; i++) {
    const value = await read()
    if (check(value)) return value
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`condition never held: ${JSON.stringify(await read())}`)
}

/** The refusal: the last line on stderr (the first names the database and mailer). */
const lastLine = (text: string) => text.trim().split("\n").at(-1)

describe("campaigns in the gateway", () => {
  it("/admin/campaigns: create (JSON and NDJSON), start, status, pause and resume; one email per recipient", async () => {
    const dir = tempDir()
    const env = baseEnv(dir)
    const gateway = await startGateway(env)
    try {
      const recipients = Array.from({ length: 250 }, (_, i) => ({ email: `reader${i}@example.com`, vars: { name: `Reader ${i}` } }))
      expect((await fetch(`${gateway.url}/admin/campaigns`)).status).toBe(401)
      const created = await admin(gateway.url, "/admin/campaigns", {
        method: "POST",
        body: JSON.stringify({ id: "spring", template, recipients: [...recipients, "READER3@example.com"] })
      })
      expect(created).toMatchObject({ status: 201, body: { id: "spring", state: "draft", total: 250, remaining: 250 } })
      expect((await admin(gateway.url, "/admin/campaigns/spring/resume", { method: "POST" })).status).toBe(409)
      expect((await admin(gateway.url, "/admin/campaigns/nope", {})).status).toBe(404)
      const again = await admin(gateway.url, "/admin/campaigns", {
        method: "POST",
        body: JSON.stringify({ id: "spring", template: { ...template, subject: "Other" }, recipients: [] })
      })
      expect(again.status).toBe(409)
      // The same id is refused even with the same template: nothing is silently kept or merged.
      const same = await admin(gateway.url, "/admin/campaigns", { method: "POST", body: JSON.stringify({ id: "spring", template, recipients: ["late@example.com"] }) })
      expect(same).toMatchObject({ status: 409, body: { status: "conflict", state: "draft" } })
      expect((await admin(gateway.url, "/admin/campaigns/spring", {})).body.total).toBe(250)
      // A draft is replaced when asked: its recipients are exactly the new list.
      const replaced = await admin(gateway.url, "/admin/campaigns?replace=true", {
        method: "POST",
        body: JSON.stringify({ id: "spring", template, recipients: recipients.slice(0, 240) })
      })
      expect(replaced).toMatchObject({ status: 200, body: { id: "spring", state: "draft", total: 240 } })

      // Parallel starts of one draft (real concurrency on the database): exactly one wins.
      const starts = await Promise.all(Array.from({ length: 8 }, () => admin(gateway.url, "/admin/campaigns/spring/start", { method: "POST" })))
      expect(starts.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409])
      expect(starts.find((r) => r.status === 200)!.body).toMatchObject({ state: "running", total: 240 })
      expect(starts.filter((r) => r.status === 409).every((r) => r.body.status === "conflict" && r.body.operation === "start")).toBe(true)
      const done = await eventually(() => admin(gateway.url, "/admin/campaigns/spring", {}), (r) => r.body.state === "completed")
      expect(done.body).toMatchObject({ total: 240, sent: 240, failed: 0, remaining: 0, reserved: 0, duplicatesPrevented: 0 })
      // A completed campaign is neither paused nor replaced: 409, and it still shows completed.
      expect(await admin(gateway.url, "/admin/campaigns/spring/pause", { method: "POST" }))
        .toMatchObject({ status: 409, body: { status: "conflict", state: "completed", operation: "pause" } })
      expect(await admin(gateway.url, "/admin/campaigns?replace=true", { method: "POST", body: JSON.stringify({ id: "spring", template, recipients: [] }) }))
        .toMatchObject({ status: 409, body: { state: "completed" } })
      expect((await admin(gateway.url, "/admin/campaigns/spring", {})).body.state).toBe("completed")
      // The outbox mailer has no batch endpoint: one key per recipient, one file per key.
      expect(campaignEmails(env.HOOKGATE_OUTBOX!, "spring")).toHaveLength(240)
      expect(readdirSync(env.HOOKGATE_OUTBOX!).filter((f) => f.includes("~"))).toEqual([])

      // NDJSON: a header line, then one recipient per line, streamed.
      const ndjson = [
        JSON.stringify({ id: "autumn", template }),
        ...Array.from({ length: 120 }, (_, i) => (i % 2 === 0 ? `fan${i}@example.com` : JSON.stringify({ email: `fan${i}@example.com`, vars: { name: `Fan ${i}` } })))
      ].join("\n")
      const streamed = await admin(gateway.url, "/admin/campaigns", { method: "POST", body: ndjson, headers: { "content-type": "application/x-ndjson" } })
      expect(streamed).toMatchObject({ status: 201, body: { id: "autumn", total: 120 } })
      await admin(gateway.url, "/admin/campaigns/autumn/start", { method: "POST" })
      const paused = await admin(gateway.url, "/admin/campaigns/autumn/pause", { method: "POST" })
      expect(paused.body.state).toBe("paused")
      const resumed = await admin(gateway.url, "/admin/campaigns/autumn/resume", { method: "POST" })
      expect(resumed.body.state).toMatch(/running|completed/)
      await eventually(() => admin(gateway.url, "/admin/campaigns/autumn", {}), (r) => r.body.state === "completed")
      expect(campaignEmails(env.HOOKGATE_OUTBOX!, "autumn")).toHaveLength(120)
      const list = await admin(gateway.url, "/admin/campaigns", {})
      expect(list.body.campaigns.map((c: { id: string; sent: number }) => [c.id, c.sent]).sort()).toEqual([["autumn", 120], ["spring", 240]])
      const metrics = await (await fetch(`${gateway.url}/metrics`)).text()
      expect(metrics).toMatch(/hookgate_campaign_recipients_total\{outcome="sent"[^}]*\} 360/)
    } finally {
      await gateway.stop()
    }
  }, 60_000)

  it("hookgate campaigns create|start|pause|resume|status: the CLI changes the ledger, the running gateway sends", async () => {
    const dir = tempDir()
    const env: Record<string, string> = { ...baseEnv(dir), HOOKGATE_CAMPAIGN_POLL: "100 millis" }
    writeFileSync(join(dir, "template.json"), JSON.stringify(template))
    writeFileSync(
      join(dir, "recipients.csv"),
      ["email,name", ...Array.from({ length: 180 }, (_, i) => `buyer${i}@example.com,"Buyer, number ${i}"`)].join("\n")
    )
    const create = (...flags: Array<string>) =>
      runCli(env, ["campaigns", "create", "summer", "--template", join(dir, "template.json"), "--recipients", join(dir, "recipients.csv"), ...flags])
    const first = await create()
    expect(first.code, first.stderr).toBe(0)
    // The id is in use: refused in one line, no stack trace, exit code 1; `--replace` replaces the draft.
    const refusedCreate = await create()
    expect(refusedCreate.code).toBe(1)
    expect(lastLine(refusedCreate.stderr)).toMatch(/^hookgate: campaign summer already exists \(a draft\): .*--replace/)
    expect(refusedCreate.stderr).not.toMatch(/\n\s+at /)
    const created = await create("--replace")
    expect(created.code, created.stderr).toBe(0)
    expect(created.stdout).toMatch(/summer\s+draft\s+180\s+0\s+0\s+0\s+180\s+0/)
    expect(created.stdout).toContain("summer is a draft with this template and these recipients")
    const started = await runCli(env, ["campaigns", "start", "summer"])
    expect(started.code, started.stderr).toBe(0)
    expect(started.stdout).toMatch(/summer\s+running\s+180/)
    const paused = await runCli(env, ["campaigns", "pause", "summer"])
    expect(paused.stdout).toMatch(/summer\s+paused\s+180/)
    expect((await runCli(env, ["campaigns", "resume", "summer"])).stdout).toMatch(/summer\s+running\s+180/)
    // No gateway yet: nothing is sent. Once it runs, its watcher finds the running campaign.
    expect((await runCli(env, ["campaigns", "status", "summer"])).stdout).toMatch(/summer\s+running\s+180\s+0\s/)
    const gateway = await startGateway(env)
    try {
      const status = await eventually(() => runCli(env, ["campaigns", "status", "summer"]), (r) => /summer\s+completed/.test(r.stdout))
      expect(status.stdout).toMatch(/summer\s+completed\s+180\s+180\s+0\s+0\s+0\s+0/)
      expect(campaignEmails(env.HOOKGATE_OUTBOX!, "summer")).toHaveLength(180)
      const refused = await runCli(env, ["campaigns", "resume", "nope"])
      expect(refused.code).not.toBe(0)
      expect(refused.stdout + refused.stderr).toContain("no campaign nope")
      // The state machine's refusals: one line, exit code 1, nothing changed.
      const pauseDone = await runCli(env, ["campaigns", "pause", "summer"])
      expect(pauseDone.code).toBe(1)
      expect(lastLine(pauseDone.stderr)).toBe("hookgate: campaign summer is completed: cannot pause it (it has finished: nothing is left to send)")
      const list = await runCli(env, ["campaigns", "list"])
      expect(list.stdout).toMatch(/summer\s+completed/)
    } finally {
      await gateway.stop()
    }
    const one = readdirSync(env.HOOKGATE_OUTBOX!).find((f) => f.includes(outboxFileName("buyer7@example.com")))!
    expect(one).toBeDefined()
    expect(ADMIN_TOKEN).toBeTruthy()
  }, 120_000)
})
