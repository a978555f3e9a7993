import { Campaigns } from "@hookgate/core/campaigns"
import { adminRoutes, toWebHandler } from "@hookgate/core/http"
import { MemoryLedgers, MemoryStore, ScriptedMailer, TestPipeline } from "@hookgate/testing"
import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Redacted } from "effect"
import { afterEach, expect, it } from "vitest"

/** A recipient's vars fill the subject: one that carries a line break fails alone, before any mailer. */

const TOKEN = "campaign-header-token"
const handlers: Array<{ dispose: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(handlers.splice(0).map((h) => h.dispose()))
})

it("a recipient whose subject would carry a line break is failed without a send; the rest of the batch is sent", async () => {
  // A mailer with a batch endpoint: the bad recipient must not reach it inside a batch either.
  const pipeline = TestPipeline.layer({ store: MemoryStore.layer, providers: [], mailer: { batch: true } })
  const layer = Campaigns.layerInProcess({ concurrency: 1 }).pipe(Layer.provideMerge(MemoryLedgers.layer.pipe(Layer.provideMerge(pipeline))))
  // The test's window on the mailer: every call it got, by recipient.
  const calls = HttpRouter.empty.pipe(HttpRouter.get("/test/calls", Effect.flatMap(ScriptedMailer, (m) => m.calls).pipe(
    Effect.map((list) => HttpServerResponse.unsafeJson(list.map((c) => c.to)))
  )))
  const handler = toWebHandler(HttpRouter.concat(adminRoutes({ token: Redacted.make(TOKEN), campaigns: {} }), calls), layer)
  handlers.push(handler)
  const call = async (path: string, init: RequestInit = {}) => {
    const response = await handler.handler(new Request(`http://hookgate.test${path}`, { ...init, headers: { authorization: `Bearer ${TOKEN}` } }))
    return (await response.json()) as Record<string, any>
  }
  const recipients = [
    { email: "ann@example.com", vars: { name: "Ann" } },
    { email: "eve@example.com", vars: { name: "Eve\r\nBcc: victim@example.com" } },
    { email: "bob@example.com", vars: { name: "Bob" } }
  ]
  const template = { from: "shop@example.com", subject: "Hello {{name}}", text: "News" }
  expect(await call("/admin/campaigns", { method: "POST", body: JSON.stringify({ id: "spring", template, recipients }) }))
    .toMatchObject({ id: "spring", total: 3 })
  await call("/admin/campaigns/spring/start", { method: "POST" })
  let status: Record<string, any> = {}
  for (let i = 0; i < 100 && status.state !== "completed"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    status = await call("/admin/campaigns/spring")
  }
  expect(status).toMatchObject({ state: "completed", total: 3, sent: 2, failed: 1, remaining: 0 })
  const mailed = (await call("/test/calls")) as unknown as ReadonlyArray<string>
  expect(mailed).not.toContain("eve@example.com")
  expect([...new Set(mailed)].sort()).toEqual(["ann@example.com", "bob@example.com"])
})
