import { Alert, Alerter } from "@hookgate/core/alerts"
import { ScriptedMailer } from "@hookgate/testing"
import { ConfigProvider, Effect, Layer, Logger, LogLevel } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { configProblems } from "../src/cli/report-failure.js"
import { GatewayConfig } from "../src/config/gateway-config.js"
import { alerterLayer } from "../src/gateway-layer.js"
import { baseEnv, runCli, startGateway, tempDir } from "./support/gateway-process.js"
import { deliver, signStripe, stripeBody } from "./support/webhooks.js"

/**
 * Owner alerts to a webhook (HOOKGATE_ALERT_WEBHOOK_URL, a Slack incoming webhook or an
 * endpoint of one's own), as well as or instead of email; the URL and its token are
 * secrets: `config check` shows them redacted.
 */

const SECRET_PATH = "/services/T000/B000/s3cr3tHOOK"
const received: Array<{ path: string; authorization: string | undefined; body: any }> = []
let server: http.Server
let hookUrl: string

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      received.push({ path: req.url ?? "", authorization: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString()) })
      res.writeHead(200).end("ok")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${SECRET_PATH}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
beforeEach(() => {
  received.length = 0
})

const alert = (kind: Alert["kind"]) =>
  new Alert({ id: `${kind}:test`, kind, orderKey: null, message: `a ${kind} alert`, createdAt: 0, deliveredAt: null, deliveryError: null })

/** Raises one alert through the gateway's alerter built from these settings; answers what the mailer sent. */
const raise = (settings: Record<string, string>, ...alerts: ReadonlyArray<Alert>) =>
  Effect.gen(function*() {
    const config = yield* GatewayConfig
    const mailer = ScriptedMailer.layer()
    return yield* Effect.gen(function*() {
      const alerter = yield* Alerter
      for (const a of alerts) yield* alerter.alert(a)
      return (yield* Effect.flatMap(ScriptedMailer, (m) => m.delivered)).map((d) => d.email.to)
    }).pipe(Effect.provide(alerterLayer(config).pipe(Layer.provideMerge(mailer))))
  }).pipe(
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings)))),
    Logger.withMinimumLogLevel(LogLevel.Error),
    Effect.runPromise
  )

describe("owner alerts to a webhook", () => {
  it("as well as email: both channels get an alert, the webhook with its bearer token", async () => {
    const emailed = await raise(
      { HOOKGATE_ALERT_WEBHOOK_URL: hookUrl, HOOKGATE_ALERT_WEBHOOK_TOKEN: "hook-token", HOOKGATE_OWNER_EMAIL: "owner@shop.example" },
      alert("capped")
    )
    expect(emailed).toEqual(["owner@shop.example"])
    expect(received).toHaveLength(1)
    expect(received[0]).toMatchObject({ path: SECRET_PATH, authorization: "Bearer hook-token", body: { alert: { kind: "capped" } } })
  })

  it("a misconfigured-mailer alert goes by webhook only, and counts as delivered", async () => {
    const emailed = await raise(
      { HOOKGATE_ALERT_WEBHOOK_URL: hookUrl, HOOKGATE_OWNER_EMAIL: "owner@shop.example" },
      alert("mailer_misconfigured")
    )
    expect(emailed).toEqual([])
    expect(received.map((r) => [r.body.alert.kind, r.authorization])).toEqual([["mailer_misconfigured", undefined]])
  })

  it("instead of email: without HOOKGATE_OWNER_EMAIL nothing goes through the mailer", async () => {
    expect(await raise({ HOOKGATE_ALERT_WEBHOOK_URL: hookUrl }, alert("failed"), alert("unfulfillable"))).toEqual([])
    expect(received.map((r) => r.body.alert.kind)).toEqual(["failed", "unfulfillable"])
  })

  it("a URL that is not http(s), or a token without a URL, is refused with one line each, the URL never shown", async () => {
    const problemsOf = (entries: ReadonlyArray<[string, string]>) =>
      Effect.flip(GatewayConfig).pipe(
        Effect.map(configProblems),
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map(entries))),
        Effect.runPromise
      )
    const badUrl = await problemsOf([["HOOKGATE_ALERT_WEBHOOK_URL", "ftp://s3cr3t.example/hook"]])
    expect(badUrl).toEqual(["HOOKGATE_ALERT_WEBHOOK_URL: must be an http:// or https:// URL"])
    expect(await problemsOf([["HOOKGATE_ALERT_WEBHOOK_TOKEN", "t"]]))
      .toEqual(["HOOKGATE_ALERT_WEBHOOK_TOKEN: is set without HOOKGATE_ALERT_WEBHOOK_URL"])
  })

  it("the running gateway POSTs its alerts there; `config check` shows the settings redacted", async () => {
    const env = { ...baseEnv(tempDir()), HOOKGATE_ALERT_WEBHOOK_URL: hookUrl, HOOKGATE_ALERT_WEBHOOK_TOKEN: "hook-token" }
    const check = await runCli(env, ["config", "check"])
    expect(check.code, check.stderr).toBe(0)
    expect(check.stdout).toMatch(/HOOKGATE_ALERT_WEBHOOK_URL\s+<redacted>/)
    expect(check.stdout).toMatch(/HOOKGATE_ALERT_WEBHOOK_TOKEN\s+<redacted>/)
    expect(check.stdout).toMatch(/owner alerts\s+log, webhook/)
    expect(check.stdout + check.stderr).not.toMatch(/s3cr3tHOOK|hook-token/)

    const gateway = await startGateway(env)
    try {
      // A paid session without an email: an `unfulfillable` alert.
      expect((await deliver(gateway.url, await signStripe(stripeBody("hooked", "")))).status).toBe(500)
      for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(received.map((r) => [r.body.alert.kind, r.authorization])).toEqual([["unfulfillable", "Bearer hook-token"]])
      expect(received[0]!.body.text).toMatch(/^hookgate: /)
      expect(gateway.output()).not.toMatch(/s3cr3tHOOK|hook-token/)
    } finally {
      await gateway.stop()
    }
  }, 60_000)
})
