import { describe, expect, it } from "@effect/vitest"
import { Lease, OrderStore, RetryPolicy } from "@hookgate/core"
import { Alerter, AlertStore } from "@hookgate/core/alerts"
import { Mailer } from "@hookgate/core/mail"
import { Providers } from "@hookgate/core/providers"
import { MemoryStore, paidEvent, ScriptedMailer, signTestRequest, TestProvider, TestRenderer } from "@hookgate/testing"
import { Cloudflare } from "@hookgate/cloudflare"
import { Config, Effect, Layer, Logger, LogLevel, Redacted } from "effect"
import { executionContext, json } from "./support.js"

/**
 * A platform routing several shops through one Worker script hands each shop its own
 * `env` (secrets, database, sender). Each env gets its own runtime: a shop's webhook
 * is verified with its own secret and lands in its own store.
 */
type Shop = Effect.Effect.Success<ReturnType<typeof MemoryStore.make>> & { readonly name: string; readonly secret: string }
const shop = (name: string): Shop => ({ ...Effect.runSync(MemoryStore.make()), name, secret: `whsec_${name}_0123456789abcdef` })

// The store is a binding (an object in env); the secret a string: both read from env.
const layer = Layer.mergeAll(
  Layer.unwrapEffect(Effect.map(Cloudflare.binding<Shop>("STORE"), (s) =>
    Layer.mergeAll(Layer.succeed(OrderStore, s.store), Layer.succeed(Lease, s.lease), Layer.succeed(AlertStore, s.alertStore)))),
  Layer.unwrapEffect(Effect.map(Config.redacted("TEST_WEBHOOK_SECRET"), (secret) => Providers.layer(TestProvider.make({ secret })))),
  Layer.effect(Mailer, ScriptedMailer.make()),
  Layer.succeed(Alerter, { alert: () => Effect.void }),
  TestRenderer.layer,
  RetryPolicy.layer({ inRequestBase: 0 }),
  Logger.minimumLogLevel(LogLevel.None)
)

const envOf = (s: Shop) => ({ TEST_WEBHOOK_SECRET: s.secret, STORE: s })

const webhook = (secret: string, orderId: string) =>
  Effect.runPromise(Effect.map(
    signTestRequest(Redacted.make(secret), paidEvent(`evt_${orderId}`, { orderId, email: `${orderId}@example.com`, amount: 100, currency: "usd" })),
    (request) => new Request("https://worker.example/webhooks/test", { method: "POST", headers: request.headers, body: request.body as Uint8Array<ArrayBuffer> })
  ))

const stored = (s: Shop) => Effect.runPromise(Effect.map(s.store.list({ limit: 100 }), (orders) => orders.map((o) => o.key).sort()))

describe("makeWorker: several shops through one script", () => {
  it("each env gets its own runtime: a shop is reached only with its own secret and writes only its own store", async () => {
    const worker = Cloudflare.makeWorker({ layer, jsonLogs: false })
    const { ctx } = executionContext()
    const a = shop("a")
    const b = shop("b")
    // Shop A first, so a runtime built from the first env would serve B too.
    expect(await json(await worker.fetch(await webhook(a.secret, "a1"), envOf(a), ctx))).toMatchObject({ status: 200, body: { status: "sent" } })
    expect(await json(await worker.fetch(await webhook(b.secret, "b1"), envOf(b), ctx))).toMatchObject({ status: 200, body: { status: "sent" } })
    // Each shop's secret opens only its own door, whatever env object carries it.
    expect((await worker.fetch(await webhook(a.secret, "x1"), envOf(b), ctx)).status).toBe(401)
    expect((await worker.fetch(await webhook(b.secret, "x2"), envOf(a), ctx)).status).toBe(401)
    // Concurrent traffic for both shops, each env object rebuilt per request as a platform might.
    const answers = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
      const target = i % 2 === 0 ? a : b
      return (await worker.fetch(await webhook(target.secret, `${target.name}${i + 2}`), envOf(target), ctx)).status
    }))
    expect(answers.every((status) => status === 200)).toBe(true)
    const aKeys = await stored(a)
    const bKeys = await stored(b)
    expect(aKeys).toHaveLength(11)
    expect(bKeys).toHaveLength(11)
    expect(aKeys.every((key) => key.startsWith("test:a"))).toBe(true)
    expect(bKeys.every((key) => key.startsWith("test:b"))).toBe(true)
  })

  it("the same env, or an equal one, reuses one runtime", async () => {
    let builds = 0
    const counted = Layer.merge(layer, Layer.effectDiscard(Effect.sync(() => void builds++)))
    const worker = Cloudflare.makeWorker({ layer: counted, jsonLogs: false })
    const { ctx } = executionContext()
    const a = shop("a")
    for (let i = 0; i < 3; i++) expect((await worker.fetch(await webhook(a.secret, `a${i}`), envOf(a), ctx)).status).toBe(200)
    expect(builds).toBe(1)
  })
})
