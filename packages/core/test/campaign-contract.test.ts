import { Campaigns } from "@hookgate/core/campaigns"
import { adminRoutes, toWebHandler } from "@hookgate/core/http"
import { MailerSteps, MemoryLedgers, MemoryStore, TestPipeline } from "@hookgate/testing"
import { Layer, Redacted } from "effect"
import { afterEach, describe, expect, it } from "vitest"

/**
 * The campaign routes' answers (docs/http-contract.md, "Campaign admin routes"): an id in
 * use is 409 unless `?replace=true` on a draft; the state machine's refusals are 409 with
 * the state found; a harmless repeat (pause) is 200.
 */

const TOKEN = "campaign-contract-token"
const template = { from: "shop@example.com", subject: "Hi {{email}}", text: "Hello" }

const handlers: Array<{ dispose: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(handlers.splice(0).map((h) => h.dispose()))
})

const gateway = () => {
  // Slow sends (50 ms a batch, one batch at a time), so a started campaign is still running when probed.
  const pipeline = TestPipeline.layer({ store: MemoryStore.layer, providers: [], mailer: { batch: true, otherwise: MailerSteps.slow("50 millis") } })
  const layer = Campaigns.layerInProcess({ concurrency: 1 }).pipe(Layer.provideMerge(MemoryLedgers.layer.pipe(Layer.provideMerge(pipeline))))
  const handler = toWebHandler(adminRoutes({ token: Redacted.make(TOKEN), campaigns: {} }), layer)
  handlers.push(handler)
  const call = async (path: string, init: RequestInit = {}) => {
    const response = await handler.handler(
      new Request(`http://hookgate.test${path}`, { ...init, headers: { authorization: `Bearer ${TOKEN}`, ...(init.headers ?? {}) } })
    )
    return { status: response.status, body: await response.json() as Record<string, any> }
  }
  const create = (id: string, count: number, query = "", subject = template.subject) =>
    call(`/admin/campaigns${query}`, {
      method: "POST",
      body: JSON.stringify({ id, template: { ...template, subject }, recipients: Array.from({ length: count }, (_, i) => `r${i}@example.com`) })
    })
  const op = (id: string, operation: "start" | "pause" | "resume") => call(`/admin/campaigns/${id}/${operation}`, { method: "POST" })
  return { call, create, op }
}

const conflict = (state: string, operation?: string) => ({
  status: 409,
  body: { status: "conflict", state, ...(operation === undefined ? {} : { operation }), detail: expect.any(String) }
})

describe("the campaign routes' contract", () => {
  it("create: 201; the same id again is 409 (even with the same template); ?replace=true replaces a draft (200) or creates (201)", async () => {
    const { call, create } = gateway()
    expect(await create("c1", 3)).toMatchObject({ status: 201, body: { id: "c1", state: "draft", total: 3 } })
    const again = await create("c1", 5)
    expect(again).toMatchObject(conflict("draft"))
    expect(again.body.detail).toContain("replace")
    expect((await call("/admin/campaigns/c1")).body).toMatchObject({ total: 3 })
    expect(await create("c1", 7, "?replace=true", "New subject")).toMatchObject({ status: 200, body: { id: "c1", state: "draft", total: 7 } })
    expect(await create("c1", 2, "?replace=false")).toMatchObject(conflict("draft"))
    expect(await create("c1", 2, "?replace=maybe")).toMatchObject({ status: 400, body: { status: "bad_request" } })
    // NDJSON takes the same parameter.
    const ndjson = [JSON.stringify({ id: "c1", template }), "x@example.com", "y@example.com"].join("\n")
    const streamed = await call("/admin/campaigns?replace=true", { method: "POST", body: ndjson, headers: { "content-type": "application/x-ndjson" } })
    expect(streamed).toMatchObject({ status: 200, body: { total: 2 } })
    expect(await call("/admin/campaigns", { method: "POST", body: ndjson, headers: { "content-type": "application/x-ndjson" } }))
      .toMatchObject(conflict("draft"))
    // Replace on a free id creates it: 201, as any creation.
    expect(await create("c2", 1, "?replace=true")).toMatchObject({ status: 201, body: { id: "c2", total: 1 } })
    expect(await create("c2", 3, "?replace=1")).toMatchObject({ status: 200, body: { id: "c2", total: 3 } })
  })

  it("two ?replace=true creates of one draft at once: the one replaced while its body streams in is 409, and the list kept is the other's alone", async () => {
    const { call, create } = gateway()
    expect((await create("c1", 3)).status).toBe(201)
    // An NDJSON body that sends 1,100 recipients (the first 500 are written once the next 500 are read), then waits.
    let finish: () => void = () => {}
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const lines = [JSON.stringify({ id: "c1", template }), ...Array.from({ length: 1_100 }, (_, i) => `slow${i}@example.com`)]
        controller.enqueue(new TextEncoder().encode(lines.join("\n") + "\n"))
        finish = () => {
          controller.enqueue(new TextEncoder().encode("last@example.com\n"))
          controller.close()
        }
      }
    })
    const slow = call("/admin/campaigns?replace=true", {
      method: "POST",
      body,
      headers: { "content-type": "application/x-ndjson" },
      duplex: "half"
    } as RequestInit)
    for (let i = 0; i < 200 && (await call("/admin/campaigns/c1")).body.remaining !== 500; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect((await call("/admin/campaigns/c1")).body.remaining).toBe(500)
    expect(await create("c1", 7, "?replace=true", "The other one")).toMatchObject({ status: 200, body: { total: 7 } })
    finish()
    const refused = await slow
    expect(refused).toMatchObject(conflict("draft"))
    expect(refused.body.detail).toContain("replaced by another create")
    expect((await call("/admin/campaigns/c1")).body).toMatchObject({ state: "draft", total: 7, remaining: 7 })
  })

  it("an empty campaign is never started: 409 draft, nothing dispatched; with its list it starts", async () => {
    const { create, op } = gateway()
    expect((await create("empty", 0)).status).toBe(201)
    const refused = await op("empty", "start")
    expect(refused).toMatchObject(conflict("draft", "start"))
    expect(refused.body.detail).toContain("no recipients")
    expect((await create("empty", 3, "?replace=true")).status).toBe(200)
    expect(await op("empty", "start")).toMatchObject({ status: 200, body: { state: "running", total: 3 } })
  })

  it("an NDJSON body's bad recipient is a 400 naming its line (the header is line 1, blank lines counted); nothing is kept", async () => {
    const { call } = gateway()
    const ndjson = [JSON.stringify({ id: "lines", template }), "a@example.com", "", "not-an-email", "b@example.com"].join("\n")
    const refused = await call("/admin/campaigns", { method: "POST", body: ndjson, headers: { "content-type": "application/x-ndjson" } })
    expect(refused).toMatchObject({ status: 400, body: { status: "bad_request" } })
    expect(refused.body.detail).toBe(`campaign lines: line 4: "not-an-email" is not an email address`)
    expect((await call("/admin/campaigns/lines")).status).toBe(404)
  })

  it("a campaign that started is never replaced: 409 with its state, its ledger unchanged", async () => {
    const { call, create, op } = gateway()
    await create("c1", 250)
    expect((await op("c1", "start")).status).toBe(200)
    expect(await create("c1", 1, "?replace=true")).toMatchObject(conflict("running"))
    expect((await op("c1", "pause")).status).toBe(200)
    expect(await create("c1", 1, "?replace=true")).toMatchObject(conflict("paused"))
    expect((await call("/admin/campaigns/c1")).body).toMatchObject({ total: 250 })
  })

  it("start, pause, resume: every refusal of the state machine is 409 with the state found; a repeated pause is 200", async () => {
    const { call, create, op } = gateway()
    expect(await op("nope", "start")).toMatchObject({ status: 404, body: { status: "not_found" } })
    await create("c1", 400)
    expect(await op("c1", "pause")).toMatchObject(conflict("draft", "pause"))
    expect(await op("c1", "resume")).toMatchObject(conflict("draft", "resume"))
    expect(await op("c1", "start")).toMatchObject({ status: 200, body: { state: "running" } })
    expect(await op("c1", "start")).toMatchObject(conflict("running", "start"))
    expect(await op("c1", "resume")).toMatchObject(conflict("running", "resume"))
    expect(await op("c1", "pause")).toMatchObject({ status: 200, body: { state: "paused" } })
    expect(await op("c1", "pause")).toMatchObject({ status: 200, body: { state: "paused" } })
    expect(await op("c1", "start")).toMatchObject(conflict("paused", "start"))
    expect((await op("c1", "resume")).status).toBe(200)
    for (let i = 0; i < 200 && (await call("/admin/campaigns/c1")).body.state !== "completed"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    expect((await call("/admin/campaigns/c1")).body).toMatchObject({ state: "completed", sent: 400 })
    for (const operation of ["start", "pause", "resume"] as const) {
      expect(await op("c1", operation)).toMatchObject(conflict("completed", operation))
    }
    expect((await call("/admin/campaigns/c1")).body.state).toBe("completed")
  })

  it("parallel requests: of 10 concurrent starts (and then resumes) exactly one is 200, nine are 409", async () => {
    const { create, op } = gateway()
    await create("c1", 400)
    const starts = await Promise.all(Array.from({ length: 10 }, () => op("c1", "start")))
    expect(starts.map((r) => r.status).sort()).toEqual([200, ...Array.from({ length: 9 }, () => 409)])
    expect((await op("c1", "pause")).status).toBe(200)
    const resumes = await Promise.all(Array.from({ length: 10 }, () => op("c1", "resume")))
    expect(resumes.map((r) => r.status).sort()).toEqual([200, ...Array.from({ length: 9 }, () => 409)])
    expect(resumes.filter((r) => r.status === 409).every((r) => r.body.state === "running" || r.body.state === "completed")).toBe(true)
  })
})
