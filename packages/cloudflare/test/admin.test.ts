import { adminRoutes } from "@hookgate/core/http"
import { Config } from "effect"
import { describe, expect, it } from "vitest"
import { env, executionContext, harness, json, webhook } from "./support.js"

/** A Worker mounts core's admin routes too, its token read from `env` through Config on each request. */

const ADMIN_TOKEN = "worker-admin-token"
const router = adminRoutes({ token: Config.redacted("HOOKGATE_ADMIN_TOKEN") })

const get = (path: string, token?: string) =>
  new Request(`https://worker.example${path}`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } })

describe("makeWorker with the admin routes", () => {
  it("serves /admin/* with the token from env, 401 without it; webhooks as before", async () => {
    const { worker } = harness({ router })
    const workerEnv = { ...env, HOOKGATE_ADMIN_TOKEN: ADMIN_TOKEN }
    const { ctx, settle } = executionContext()
    expect(await json(await worker.fetch(await webhook("w1"), workerEnv, ctx))).toMatchObject({ status: 200, body: { status: "sent" } })
    expect((await worker.fetch(get("/admin/stats"), workerEnv, ctx)).status).toBe(401)
    expect((await worker.fetch(get("/admin/stats", "wrong"), workerEnv, ctx)).status).toBe(401)
    expect(await json(await worker.fetch(get("/admin/orders/test%3Aw1", ADMIN_TOKEN), workerEnv, ctx)))
      .toMatchObject({ status: 200, body: { order: { key: "test:w1", status: "sent" } } })
    await settle()
  })

  it("lets nobody in when env has no admin token", async () => {
    const { worker } = harness({ router })
    const { ctx, settle } = executionContext()
    expect(await json(await worker.fetch(get("/admin/stats", ADMIN_TOKEN), env, ctx))).toEqual({ status: 401, body: { status: "unauthorized" } })
    await settle()
  })
})
