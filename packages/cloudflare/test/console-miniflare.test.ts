import { paidEvent, signTestRequest } from "@hookgate/testing"
import { Effect, Redacted } from "effect"
import { Miniflare } from "miniflare"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleWorker } from "./bundle.js"

/**
 * The console on Workers, in Miniflare (workerd: no eval, no new Function): the same
 * routes as the Node gateway's, passed to makeWorker's router. Pages render (Mustache
 * interprets its templates), sign-in sets a Secure cookie over HTTPS, a form posts
 * with its CSRF token and is refused without it, and without a token it is all 404.
 */
const source = fileURLToPath(new URL("./console-worker/worker.ts", import.meta.url))
const SECRET = "whsec_console_worker_5e1f"
const TOKEN = "worker-console-token"
const BASE = "https://shop.example"

let mf: Miniflare
beforeAll(async () => {
  mf = new Miniflare({
    modules: [{ type: "ESModule", path: "worker.mjs", contents: await bundleWorker(source) }],
    compatibilityDate: "2026-04-20",
    d1Databases: { DB: "hookgate-console" },
    bindings: { TEST_WEBHOOK_SECRET: SECRET, HOOKGATE_ADMIN_TOKEN: TOKEN }
  })
  await mf.ready
}, 60_000)
afterAll(() => mf?.dispose())

const fetchPage = async (path: string, init: { method?: string; cookie?: string; form?: Record<string, string>; origin?: string } = {}) => {
  const headers: Record<string, string> = {}
  if (init.cookie !== undefined) headers["cookie"] = init.cookie
  if (init.origin !== undefined) headers["origin"] = init.origin
  if (init.form !== undefined) headers["content-type"] = "application/x-www-form-urlencoded"
  const response = await mf.dispatchFetch(`${BASE}${path}`, {
    method: init.method ?? "GET",
    headers,
    ...(init.form === undefined ? {} : { body: new URLSearchParams(init.form).toString() }),
    redirect: "manual"
  })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

const emails = async () => (await (await mf.getD1Database("DB")).prepare("SELECT recipient, idempotency_key FROM test_emails").all()).results

describe("the console in a Worker (Miniflare)", () => {
  it("serves pages after sign-in, posts a form with its CSRF token and refuses one without", async () => {
    const request = await Effect.runPromise(signTestRequest(
      Redacted.make(SECRET),
      paidEvent("evt_w1", { orderId: "w1", email: "wanda@example.com", amount: 100, currency: "usd", metadata: { note: "<script>x</script>" } })
    ))
    const webhook = await mf.dispatchFetch(`${BASE}/webhooks/test`, { method: "POST", headers: request.headers, body: new TextDecoder().decode(request.body) })
    expect(((await webhook.json()) as { status: string }).status).toBe("sent")

    expect((await fetchPage("/console")).headers.get("location")).toBe("/console/sign-in")
    const signInPage = await fetchPage("/console/sign-in")
    expect(signInPage.status).toBe(200)
    expect(signInPage.headers.get("content-security-policy")).toContain("script-src 'self'")
    const signIn = await fetchPage("/console/sign-in", { method: "POST", form: { token: TOKEN, operator: "Wanda Ops" }, origin: BASE })
    expect(signIn.status).toBe(303)
    const setCookie = signIn.headers.get("set-cookie")!
    expect(setCookie).toMatch(/HttpOnly; SameSite=Strict; Secure|Secure; HttpOnly; SameSite=Strict|HttpOnly; Secure; SameSite=Strict/)
    const cookie = setCookie.split(";")[0]!

    for (const path of ["/console", "/console/orders?q=wanda%40example.com", "/console/alerts", "/console/campaigns"]) {
      expect((await fetchPage(path, { cookie })).status, path).toBe(path === "/console/campaigns" ? 404 : 200)
    }
    const order = await fetchPage("/console/orders/test%3Aw1", { cookie })
    expect(order.status).toBe(200)
    expect(order.text).toContain("wanda@example.com")
    expect(order.text).toContain("&lt;script&gt;x&lt;&#x2F;script&gt;")
    expect(order.text).not.toContain("<script>x")
    const csrf = /name="_csrf" value="([0-9a-f]+)"/.exec(order.text)![1]!

    const without = await fetchPage("/console/orders/test%3Aw1/send-again", { method: "POST", cookie, form: { confirm: "yes" }, origin: BASE })
    expect(without.status).toBe(403)
    expect(await emails()).toHaveLength(1)
    const withToken = await fetchPage("/console/orders/test%3Aw1/send-again", { method: "POST", cookie, form: { confirm: "yes", _csrf: csrf }, origin: BASE })
    expect(withToken.headers.get("location")).toBe("/console/orders/test%3Aw1?done=again_sent")
    const sent = await emails()
    expect(sent).toHaveLength(2)
    expect(String(sent[1]!["idempotency_key"])).toMatch(/^hookgate\/again\//)
  })

  it("answers 404 on every console path when env has no admin token", async () => {
    for (const path of ["/no-token/console", "/no-token/console/sign-in", "/no-token/console/orders"]) {
      expect((await fetchPage(path)).status, path).toBe(404)
    }
    expect((await fetchPage("/no-token/console/sign-in", { method: "POST", form: { token: TOKEN, operator: "x" } })).status).toBe(404)
  })
})
