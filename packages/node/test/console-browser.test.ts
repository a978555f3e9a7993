import { startResendTestServer, type ResendTestServerShape } from "@hookgate/mailer-resend/testing"
import { checkoutSessionEvent } from "@hookgate/provider-stripe/testing"
import { mkdirSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_TOKEN, baseEnv, type GatewayProcess, REPOSITORY_ROOT, resendEnv, startGateway, tempDir } from "./support/gateway-process.js"
import { admin, deliver, signStripe, stripeBody } from "./support/webhooks.js"

/**
 * The console in a real browser: Debian's chromium driven by playwright-core, against a
 * real `hookgate serve` on SQLite mailing through the Resend stand-in. Screenshots of
 * each page go to the test's output dir; HOOKGATE_README_SCREENSHOT=1 rewrites the one
 * under docs/ that the README shows.
 */

const CHROMIUM = "/usr/bin/chromium"
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]
const SHOTS = join(REPOSITORY_ROOT, "packages/node/test-output/console")

let resend: ResendTestServerShape
let gateway: GatewayProcess
let context: BrowserContext
let page: Page
const dialogs: Array<string> = []
const consoleErrors: Array<string> = []
const requestsOut: Array<string> = []

const HOSTILE = {
  script: "<script>alert('script')</script>",
  img: "\"><img src=x onerror=alert('img')>",
  link: "javascript:alert('link')",
  rtl: "invoice\u202Egnp.exe"
}

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true })
  resend = await startResendTestServer()
  const dir = tempDir()
  gateway = await startGateway({
    ...baseEnv(dir),
    ...resendEnv(resend),
    HOOKGATE_MAX_ATTEMPTS: "1",
    HOOKGATE_OWNER_EMAIL: "owner@example.com",
    HOOKGATE_FROM: "Shop <orders@example.com>",
    HOOKGATE_CAMPAIGN_POLL: "200 millis"
  })
  context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "hookgate-chromium-")), {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1100, height: 800 }
  })
  page = context.pages()[0] ?? await context.newPage()
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text())
  })
  page.on("pageerror", (error) => consoleErrors.push(String(error)))
  page.on("request", (request) => requestsOut.push(request.url()))
}, 120_000)

afterAll(async () => {
  await context?.close()
  await gateway?.stop()
  await resend?.close()
})

const signIn = async () => {
  await context.clearCookies()
  await page.goto(`${gateway.url}/console`)
  expect(page.url()).toBe(`${gateway.url}/console/sign-in`)
  await page.fill("input[name=token]", ADMIN_TOKEN)
  await page.fill("input[name=operator]", "Ops Olga")
  await page.click("button[type=submit]")
  await page.waitForURL(`${gateway.url}/console`)
}

describe("the console in chromium", () => {
  it("signs in with the admin token into an HttpOnly, SameSite=Strict cookie; a wrong token does not", async () => {
    await page.goto(`${gateway.url}/console/sign-in`)
    await shot("sign-in")
    await page.fill("input[name=token]", "not-the-token")
    await page.fill("input[name=operator]", "Mallory")
    await page.click("button[type=submit]")
    await page.waitForURL(/sign-in\?failed=1/)
    expect(await context.cookies()).toEqual([])
    await signIn()
    const [cookie] = await context.cookies()
    expect(cookie).toMatchObject({ name: "hookgate_console", httpOnly: true, sameSite: "Strict", path: "/console" })
    expect(cookie!.expires).toBeGreaterThan(Date.now() / 1000)
    expect(await page.textContent("header")).toContain("Ops Olga")
  })

  it("reads on a phone-sized screen with its script blocked", async () => {
    await context.clearCookies()
    const tab = await context.newPage()
    try {
      await tab.setViewportSize({ width: 375, height: 700 })
      await tab.route("**/*.js", (route) => route.abort())
      await tab.goto(`${gateway.url}/console`)
      expect(tab.url()).toBe(`${gateway.url}/console/sign-in`)
      await tab.fill("input[name=token]", ADMIN_TOKEN)
      await tab.fill("input[name=operator]", "Phone")
      await tab.click("button[type=submit]")
      await tab.waitForURL(`${gateway.url}/console`)
      expect(await tab.textContent("main")).toContain("due now")
      // Nothing overflows sideways.
      expect(await tab.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
      await tab.screenshot({ path: join(SHOTS, "overview-phone.png"), fullPage: true })
    } finally {
      await tab.close()
    }
  })

  it("finds an order by email and shows its timeline", async () => {
    const signed = await signStripe(stripeBody("browser-alice", "alice@example.com"))
    expect((await deliver(gateway.url, signed)).body.status).toBe("sent")
    // The last sweep (whoever ran it: here the admin route) shows on the overview, from the store.
    const swept = (await admin(gateway.url, "/admin/sweep", { method: "POST" })).body
    await signIn()
    const overview = await page.textContent("main")
    expect(overview).toContain("Last sweep")
    expect(overview).not.toContain("No sweep recorded yet.")
    expect(overview).toMatch(new RegExp(`Due orders found\\s*${swept.scanned}`))
    await shot("overview")
    await page.click("nav >> text=Orders")
    await page.fill("input[name=q]", "ALICE@example.com")
    await page.click("form.filters button")
    const rows = page.locator("tbody tr")
    expect(await rows.count()).toBe(1)
    await shot("orders")
    await rows.locator("a").click()
    await page.waitForURL(/\/console\/orders\/stripe%3Acs_test_browser-alice/)
    const timeline = await page.textContent(".timeline")
    expect(timeline).toContain("received")
    expect(timeline).toContain("attempt 1: sent")
    await shot("order")
    // The README's picture: HOOKGATE_README_SCREENSHOT=1 rewrites it.
    if (process.env.HOOKGATE_README_SCREENSHOT === "1") {
      await page.setViewportSize({ width: 900, height: 700 })
      await page.screenshot({ path: join(REPOSITORY_ROOT, "docs/images/console.png") })
      await page.setViewportSize({ width: 1100, height: 800 })
    }
  })

  it("retries a capped order once the mail API recovers, and resolves its alert with a note", async () => {
    const signed = await signStripe(stripeBody("browser-capped", "bob@example.com"))
    resend.reset()
    resend.failNext(20, { status: 500, name: "internal_server_error", message: "down" })
    expect((await deliver(gateway.url, signed)).body.status).toBe("capped")
    resend.reset() // the mail API recovers
    await signIn()
    expect(await page.textContent(".tile.capped")).toContain("1")
    await page.goto(`${gateway.url}/console/orders?state=capped`)
    await page.click("tbody a")
    await page.click("text=Retry now")
    await page.waitForURL(/done=sent/)
    expect(await page.textContent(".flash")).toContain("Sent")
    // Each attempt on the timeline: the failed ones with their error class, then the one that sent.
    const timeline = await page.textContent(".timeline")
    expect(timeline).toMatch(/attempt \d+: failed, the cap reached \(Transient\)/)
    expect(timeline).toContain("attempt 1: sent")
    expect(resend.emails.filter((e) => e.idempotencyKey === `hookgate/order/${signed.orderKey}`)).toHaveLength(1)
    expect((await admin(gateway.url, `/admin/orders/${encodeURIComponent(signed.orderKey)}`)).body.order.status).toBe("sent")
    expect(gateway.stdout()).toMatch(/console: retry now[^\n]*Ops Olga/)

    await page.click("nav >> text=Alerts")
    const alert = page.locator("article.alert", { hasText: signed.orderKey })
    await alert.locator("input[name=note]").fill("Resend was down; retried")
    await shot("alerts")
    await alert.locator("button").click()
    await page.waitForURL(/done=resolved/)
    expect(await page.locator("article.alert", { hasText: signed.orderKey }).count()).toBe(0)
    await page.goto(`${gateway.url}/console/alerts?state=resolved`)
    expect(await page.textContent("main")).toContain("Resend was down; retried (Ops Olga)")
  })

  it("sends again under a new idempotency key, only when confirmed, logged with who asked", async () => {
    const signed = await signStripe(stripeBody("browser-lost", "carol@example.com"))
    expect((await deliver(gateway.url, signed)).body.status).toBe("sent")
    await signIn()
    await page.goto(`${gateway.url}/console/orders/${encodeURIComponent(signed.orderKey)}`)
    const toCarol = () => resend.emails.filter((e) => e.to.includes("carol@example.com"))
    expect(toCarol()).toHaveLength(1)
    await page.check("input[name=confirm]")
    await page.click("text=Send again")
    await page.waitForURL(/done=again_sent/)
    expect(toCarol()).toHaveLength(2)
    expect(toCarol()[1]!.idempotencyKey).toMatch(/^hookgate\/again\//)
    expect(toCarol()[1]!.idempotencyKey).not.toBe(toCarol()[0]!.idempotencyKey)
    expect(gateway.stdout()).toMatch(/console: sent again[^\n]*Ops Olga/)
  })

  it("pauses and resumes a campaign and watches its progress refresh without a reload", async () => {
    const recipients = Array.from({ length: 300 }, (_, i) => `reader${i}@example.com`)
    const template = { from: "Shop <news@example.com>", subject: "Spring <b>sale</b>", text: "Hello" }
    expect((await admin(gateway.url, "/admin/campaigns", { method: "POST", body: JSON.stringify({ id: "spring", template, recipients }) })).status).toBe(201)
    resend.reset()
    resend.delayNext(3, 3000) // three batches of 100, slow enough to pause in the middle
    expect((await admin(gateway.url, "/admin/campaigns/spring/start", { method: "POST" })).status).toBe(200)
    await signIn()
    await page.goto(`${gateway.url}/console/campaigns/spring`)
    expect(await page.textContent("main")).toContain("Spring <b>sale</b>")
    expect(await page.textContent("[data-field=state]")).toBe("running")
    await page.click("text=Pause")
    await page.waitForURL(/done=paused/)
    expect(await page.textContent("[data-field=state]")).toBe("paused")
    expect(Number(await page.textContent("[data-field=sent]"))).toBeLessThan(300)
    await shot("campaign")
    await page.click("text=Resume")
    await page.waitForURL(/done=resumed/)
    // progress.js polls the progress JSON and updates the page in place.
    await page.waitForFunction(() => document.querySelector("[data-field=state]")?.textContent === "completed", null, { timeout: 60_000 })
    expect(await page.textContent("[data-field=sent]")).toBe("300")
    await page.goto(`${gateway.url}/console/campaigns`)
    await shot("campaigns")
  }, 90_000)

  it("shows hostile webhook fields as text and runs none of them", async () => {
    const body = checkoutSessionEvent("evt_hostile", "checkout.session.completed", {
      id: `cs_${HOSTILE.img}`,
      email: "mallory@example.com",
      amountTotal: 100,
      currency: "usd",
      metadata: { product: HOSTILE.script, link: HOSTILE.link, note: HOSTILE.rtl, [HOSTILE.img]: HOSTILE.img }
    })
    const signed = await signStripe(body)
    expect([200, 500]).toContain((await deliver(gateway.url, signed)).status)
    await signIn()
    await page.goto(`${gateway.url}/console/orders?q=mallory%40example.com`)
    expect(await page.textContent("tbody")).toContain(HOSTILE.img)
    await page.click("tbody a")
    await page.waitForLoadState("load")
    const main = await page.textContent("main")
    for (const value of [HOSTILE.script, HOSTILE.img, HOSTILE.link]) expect(main).toContain(value)
    // The override is shown as its code point, so it reorders nothing.
    expect(main).toContain("invoice[U+202E]gnp.exe")
    expect(main).not.toContain("\u202E")
    expect(await page.locator("main script, main img").count()).toBe(0)
    expect(await page.locator("a[href^='javascript:']").count()).toBe(0)
    await shot("hostile")
    await page.waitForTimeout(300)
    expect(dialogs).toEqual([])
    expect(consoleErrors).toEqual([])
    expect(requestsOut.filter((url) => !url.startsWith(gateway.url))).toEqual([])
  })

  it("refuses a cross-site form post without the CSRF token, and changes nothing", async () => {
    const signed = await signStripe(stripeBody("browser-csrf", "dave@example.com"))
    resend.reset()
    resend.failNext(20, { status: 500, name: "internal_server_error", message: "down" })
    expect((await deliver(gateway.url, signed)).body.status).toBe("capped")
    resend.reset()
    await signIn()
    // Another site's page posts to the console: the browser withholds the Strict cookie and sends its Origin.
    const evil = await context.newPage()
    await evil.route("http://evil.example/**", (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<form method="post" action="${gateway.url}/console/orders/${encodeURIComponent(signed.orderKey)}/retry"></form>` +
          `<script>document.forms[0].submit()</script>`
      }))
    const answer = evil.waitForResponse((r) => r.url().includes("/retry"))
    await evil.goto("http://evil.example/")
    expect((await answer).status()).toBe(403)
    await evil.close()
    // The signed-in page itself, its CSRF field removed, is refused too.
    await page.goto(`${gateway.url}/console/orders/${encodeURIComponent(signed.orderKey)}`)
    await page.evaluate(() => document.querySelectorAll("input[name=_csrf]").forEach((i) => i.remove()))
    const refused = page.waitForResponse((r) => r.url().endsWith("/retry"))
    await page.click("text=Retry now")
    expect((await refused).status()).toBe(403)
    expect((await admin(gateway.url, `/admin/orders/${encodeURIComponent(signed.orderKey)}`)).body.order.status).toBe("capped")
    expect(resend.emails.filter((e) => e.idempotencyKey === `hookgate/order/${signed.orderKey}`)).toHaveLength(0)
  })

  it("refuses a forged or tampered cookie", async () => {
    await signIn()
    const [cookie] = await context.cookies()
    const [expires, nonce, name, mac] = cookie!.value.split(".")
    const tampered = [
      `${Number(expires) + 1_000_000}.${nonce}.${name}.${mac}`,
      `${expires}.${nonce}.${Buffer.from("Eve").toString("base64url")}.${mac}`,
      `${expires}.${nonce}.${name}.${"0".repeat(64)}`,
      "forged"
    ]
    for (const value of tampered) {
      await context.clearCookies()
      await context.addCookies([{ ...cookie!, value }])
      await page.goto(`${gateway.url}/console/orders`)
      expect(page.url()).toBe(`${gateway.url}/console/sign-in`)
    }
  })

  it("sends a CSP without inline script and the security headers on every page", async () => {
    const response = await fetch(`${gateway.url}/console/sign-in`)
    const csp = response.headers.get("content-security-policy")!
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toContain("unsafe-inline")
    expect(csp).not.toContain("unsafe-eval")
    expect(response.headers.get("x-frame-options")).toBe("DENY")
  })
})
