import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import { mountWhenSet, Providers, VerifiedEvent } from "@hookgate/core/providers"
import { describeEachHmac } from "@hookgate/testing/conformance"
import { expect, it as plain } from "@effect/vitest"
import { Config, ConfigProvider, Effect, Exit, Layer, Redacted } from "effect"
import { Paddle } from "../src/index.js"
import { paddleEvent, signPaddleRequest, transactionEvent } from "../src/testing/index.js"
import { atNow, NOW_S, OLD_SECRET, SECRET, server } from "./support.js"

const withConfig = (entries: Record<string, string>) => Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries))))
const mounted = (layer: Layer.Layer<never, unknown, Providers | HttpClient.HttpClient>, entries: Record<string, string>) =>
  Providers.layer(layer).pipe(Layer.provide(FetchHttpClient.layer), Layer.provide(withConfig(entries)))

const provider = (name = "paddle") => Effect.flatMap(Providers, (p) => p.get(name))
const settings = { PADDLE_WEBHOOK_SECRET: `${SECRET},${OLD_SECRET}`, PADDLE_API_KEY: server.apiKey, PADDLE_API_BASE_URL: server.url }

describeEachHmac("paddle: configuration", (it) => {
  it.effect("layerConfig reads PADDLE_WEBHOOK_SECRET (a list), PADDLE_API_KEY and PADDLE_API_BASE_URL, and fetches with them", () =>
    Effect.gen(function*() {
      yield* atNow
      const paddle = yield* provider()
      for (const secret of [SECRET, OLD_SECRET]) {
        expect((yield* paddle.verify(yield* signPaddleRequest(secret, paddleEvent("evt_c", "subscription.created")))).id).toBe("evt_c")
      }
      const customerId = server.addCustomer({ email: "config@example.com" })
      const event = yield* paddle.verify(
        yield* signPaddleRequest(SECRET, transactionEvent("evt_t", "transaction.completed", { id: "txn_cfg", customerId }))
      )
      const fulfilment = yield* paddle.fulfilment(event)
      expect(fulfilment._tag === "Some" && fulfilment.value.email).toBe("config@example.com")
      expect(server.requests.at(-1)).toMatchObject({ path: `/customers/${customerId}`, authorized: true })
    }).pipe(Effect.provide(mounted(Paddle.layerConfig(), settings))))

  it.effect("layerConfig takes another secret name, a tolerance and a provider name", () =>
    Effect.gen(function*() {
      yield* atNow
      const stale = yield* signPaddleRequest(SECRET, paddleEvent("evt_s", "subscription.created"), { timestamp: NOW_S - 31 })
      expect(yield* Effect.flip((yield* provider("paddle-eu")).verify(stale))).toMatchObject({ provider: "paddle-eu", reason: "timestamp_too_old" })
      const fresh = yield* signPaddleRequest(SECRET, paddleEvent("evt_f", "subscription.created"), { timestamp: NOW_S - 29 })
      expect((yield* (yield* provider("paddle-eu")).verify(fresh)).id).toBe("evt_f")
    }).pipe(
      Effect.provide(
        mounted(Paddle.layerConfig({ secrets: "PADDLE_EU_WEBHOOK_SECRET", name: "paddle-eu", tolerance: "30 seconds" }), {
          ...settings,
          PADDLE_EU_WEBHOOK_SECRET: SECRET
        })
      )
    ))

  it.effect("mounted only when PADDLE_WEBHOOK_SECRET is set, as a gateway mounts its providers (mountWhenSet)", () =>
    Effect.gen(function*() {
      const mount = Providers.layer(
        mountWhenSet("PADDLE_WEBHOOK_SECRET", (secrets) => Paddle.layerConfig({ secrets: Config.succeed(secrets) }))
      ).pipe(Layer.provide(FetchHttpClient.layer))
      const names = (entries: Record<string, string>) =>
        Effect.flatMap(Providers, (p) => p.names).pipe(Effect.provide(mount), Effect.provide(withConfig(entries)))
      expect(yield* names(settings)).toEqual(["paddle"])
      expect(yield* names({ PADDLE_API_KEY: server.apiKey })).toEqual([])
    }))

  it.effect("a missing PADDLE_API_KEY or secret fails the layer naming it, never a value", () =>
    Effect.gen(function*() {
      const noKey = yield* Effect.exit(Layer.build(mounted(Paddle.layerConfig(), { PADDLE_WEBHOOK_SECRET: SECRET })).pipe(Effect.scoped))
      expect(Exit.isFailure(noKey) && String(noKey.cause)).toContain("PADDLE_API_KEY")
      expect(String(noKey)).not.toContain(SECRET)
      const noSecret = yield* Effect.exit(Layer.build(mounted(Paddle.layerConfig(), { PADDLE_API_KEY: server.apiKey })).pipe(Effect.scoped))
      expect(Exit.isFailure(noSecret) && String(noSecret.cause)).toContain("PADDLE_WEBHOOK_SECRET")
      expect(String(noSecret)).not.toContain(server.apiKey)
    }))
})

plain.effect("PaddleApiConfig: production by default, the sandbox by PADDLE_ENVIRONMENT, any URL by PADDLE_API_BASE_URL; the key Redacted", () =>
  Effect.gen(function*() {
    const read = (entries: Record<string, string>) => Effect.provide(Paddle.PaddleApiConfig, withConfig(entries))
    const live = yield* read({ PADDLE_API_KEY: "pdl_live_apikey_x" })
    expect(live.baseUrl).toBe("https://api.paddle.com")
    expect(Redacted.isRedacted(live.apiKey) && String(live.apiKey)).not.toContain("pdl_live_apikey_x")
    expect((yield* read({ PADDLE_API_KEY: "k", PADDLE_ENVIRONMENT: "sandbox" })).baseUrl).toBe("https://sandbox-api.paddle.com")
    expect((yield* read({ PADDLE_API_KEY: "k", PADDLE_ENVIRONMENT: "sandbox", PADDLE_API_BASE_URL: "http://127.0.0.1:9" })).baseUrl).toBe("http://127.0.0.1:9")
    const wrong = yield* Effect.exit(read({ PADDLE_API_KEY: "k", PADDLE_ENVIRONMENT: "staging" }))
    expect(Exit.isFailure(wrong) && String(wrong.cause)).toContain("PADDLE_ENVIRONMENT")
  }))

plain.live("the default retry schedule, on the real clock: two 503s, then the email, well within Paddle's 5 s", () =>
  Effect.gen(function*() {
    const paddle = yield* Paddle.make({ secrets: Redacted.make(SECRET), apiKey: Redacted.make(server.apiKey), baseUrl: server.url }).pipe(
      Effect.provide(FetchHttpClient.layer)
    )
    const customerId = server.addCustomer({ email: "default-retry@example.com" })
    const before = server.requests.length
    server.failNext(2, { status: 503, code: "service_unavailable" })
    const event = transactionEvent("evt_d", "transaction.completed", { id: "txn_default", customerId })
    const started = Date.now()
    const fulfilment = yield* paddle.fulfilment(
      new VerifiedEvent({ provider: "paddle", id: "evt_d", type: "transaction.completed", payload: JSON.parse(event) })
    )
    expect(fulfilment._tag === "Some" && fulfilment.value.email).toBe("default-retry@example.com")
    expect(server.requests.slice(before).map((r) => r.status)).toEqual([503, 503, 200])
    expect(Date.now() - started).toBeLessThan(2_000)
  }))
