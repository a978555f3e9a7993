import { describe, expect, it } from "@effect/vitest"
import { Lease, OrderStore, RetryPolicy } from "@hookgate/core"
import { Alerter, AlertStore } from "@hookgate/core/alerts"
import { Mailer, SendReceipt } from "@hookgate/core/mail"
import { Providers } from "@hookgate/core/providers"
import { MemoryStore, paidEvent, signTestRequest, TestProvider, TestRenderer } from "@hookgate/testing"
import { Cloudflare } from "@hookgate/cloudflare"
import { Config, Context, Effect, Layer, Logger, LogLevel, Redacted } from "effect"
import { isolateRuntime } from "../src/isolate.js"
import { executionContext, json } from "./support.js"

/**
 * An isolate keeps 32 tenants' runtimes and evicts the least recently used beyond
 * that. A request still running on the evicted runtime must finish on it intact: the
 * runtime is disposed only when its last invocation is done.
 */

/** A per-runtime resource (a connection, say): opened when the runtime is built, closed when it is disposed. */
class Connection extends Context.Tag("test/Connection")<Connection, { readonly tenant: string; open: boolean }>() {}
const opened: Array<Connection["Type"]> = []
const ConnectionLayer = Layer.scoped(
  Connection,
  Effect.flatMap(Config.string("TENANT"), (tenant) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const connection = { tenant, open: true }
        opened.push(connection)
        return connection
      }),
      (connection) => Effect.sync(() => void (connection.open = false))
    )).pipe(Effect.orDie)
)

/** Sends only on an open connection; a tenant's sends wait for its gate (when it has one). */
const gates = new Map<string, Promise<void>>()
const sent: Array<{ readonly tenant: string; readonly to: string }> = []
const GatedMailer = Layer.effect(
  Mailer,
  Effect.map(Connection, (connection) =>
    Mailer.of({
      name: "gated",
      honoursIdempotencyKeys: true,
      send: (email, { idempotencyKey }) =>
        Effect.promise(() => gates.get(connection.tenant) ?? Promise.resolve()).pipe(
          Effect.zipRight(Effect.suspend(() =>
            connection.open
              ? Effect.sync(() => {
                sent.push({ tenant: connection.tenant, to: email.to })
                return new SendReceipt({ mailer: "gated", messageId: idempotencyKey, acceptedAt: Date.now() })
              })
              : Effect.die(new Error(`tenant ${connection.tenant}: the runtime was disposed under a running request`))
          ))
        )
    }))
)

type Store = Effect.Effect.Success<ReturnType<typeof MemoryStore.make>>
const layer = Layer.mergeAll(
  Layer.unwrapEffect(Effect.map(Cloudflare.binding<Store>("STORE"), (s) =>
    Layer.mergeAll(Layer.succeed(OrderStore, s.store), Layer.succeed(Lease, s.lease), Layer.succeed(AlertStore, s.alertStore)))),
  Layer.unwrapEffect(Effect.map(Config.redacted("TEST_WEBHOOK_SECRET"), (secret) => Providers.layer(TestProvider.make({ secret })))),
  GatedMailer,
  Layer.succeed(Alerter, { alert: () => Effect.void }),
  TestRenderer.layer,
  RetryPolicy.layer({ inRequestBase: 0 }),
  Logger.minimumLogLevel(LogLevel.None)
).pipe(Layer.provideMerge(ConnectionLayer))

const SECRET = "whsec_eviction_0123456789abcdef"
const tenantEnv = (tenant: string) => ({ TENANT: tenant, TEST_WEBHOOK_SECRET: SECRET, STORE: Effect.runSync(MemoryStore.make()) })

const webhook = (orderId: string) =>
  Effect.runPromise(Effect.map(
    signTestRequest(Redacted.make(SECRET), paidEvent(`evt_${orderId}`, { orderId, email: `${orderId}@example.com`, amount: 100, currency: "usd" })),
    (request) => new Request("https://worker.example/webhooks/test", { method: "POST", headers: request.headers, body: request.body as Uint8Array<ArrayBuffer> })
  ))

const tick = () => new Promise((resolve) => setTimeout(resolve, 10))

describe("makeWorker: an evicted tenant's runtime", () => {
  it("a request in flight on a tenant evicted by 32 others completes on its intact runtime, which is disposed after it", async () => {
    const worker = Cloudflare.makeWorker({ layer, jsonLogs: false })
    const { ctx } = executionContext()
    const a = tenantEnv("a")
    let openGate = () => {}
    gates.set("a", new Promise<void>((resolve) => (openGate = resolve)))
    // Shop A's request reaches its mailer and waits there.
    const inFlight = worker.fetch(await webhook("a1"), a, ctx)
    await tick()
    expect(sent).toEqual([])
    // 32 other tenants: A is now the least recently used of 33 and leaves the table.
    for (let i = 0; i < 32; i++) {
      expect((await worker.fetch(await webhook(`t${i}`), tenantEnv(`t${i}`), ctx)).status).toBe(200)
    }
    const first = opened.find((c) => c.tenant === "a")!
    expect(first.open).toBe(true)
    // Meanwhile A's next request builds A a fresh runtime (the evicted one is out of the table).
    gates.delete("a")
    expect(await json(await worker.fetch(await webhook("a2"), a, ctx))).toMatchObject({ status: 200, body: { status: "sent" } })
    expect(opened.filter((c) => c.tenant === "a")).toHaveLength(2)
    expect(first.open).toBe(true)
    // The held request finishes on the old runtime: sent once, recorded in A's store.
    openGate()
    expect(await json(await inFlight)).toEqual({ status: 200, body: { status: "sent", orderId: "test:a1" } })
    expect(sent.filter((s) => s.tenant === "a").map((s) => s.to)).toEqual(["a2@example.com", "a1@example.com"])
    const order = await Effect.runPromise(a.STORE.store.get("test:a1"))
    expect(order).toMatchObject({ _tag: "Some", value: { status: "sent" } })
    // Released by its last request, the evicted runtime is disposed; the fresh one is kept.
    await tick()
    expect(first.open).toBe(false)
    expect(opened.filter((c) => c.tenant === "a").map((c) => c.open)).toEqual([false, true])
  })
})

describe("isolateRuntime", () => {
  const counted = () => {
    const disposed: Array<string> = []
    const runtimes = isolateRuntime(
      (env) => Layer.scopedDiscard(Effect.addFinalizer(() => Effect.sync(() => void disposed.push(String(env["TENANT"]))))),
      Layer.empty,
      { maxRuntimes: 2 }
    )
    return { disposed, runtimes }
  }

  it("disposes an evicted runtime at once when nothing holds it, and only after its last holder otherwise", async () => {
    const { disposed, runtimes } = counted()
    const envs = ["a", "b", "c", "d"].map((t) => ({ TENANT: t }))
    const [a, b, c, d] = envs as [typeof envs[number], typeof envs[number], typeof envs[number], typeof envs[number]]
    ;(await runtimes.acquire(a)).release()
    const heldB1 = await runtimes.acquire(b)
    const heldB2 = await runtimes.acquire(b)
    ;(await runtimes.acquire(c)).release() // evicts a, which nobody holds
    await tick()
    expect(disposed).toEqual(["a"])
    ;(await runtimes.acquire(d)).release() // evicts b, held twice
    await tick()
    expect(disposed).toEqual(["a"])
    heldB1.release()
    heldB1.release() // a second release of one hold counts once
    await tick()
    expect(disposed).toEqual(["a"])
    heldB2.release()
    await tick()
    expect(disposed).toEqual(["a", "b"])
  })

  it("a failed build is not kept, and releasing its holders disposes it once", async () => {
    let fail = true
    const disposed: Array<number> = []
    let builds = 0
    const runtimes = isolateRuntime(() =>
      Layer.scopedDiscard(Effect.gen(function*() {
        const build = ++builds
        yield* Effect.addFinalizer(() => Effect.sync(() => void disposed.push(build)))
        if (fail) return yield* Effect.fail("no secret")
      })), Logger.minimumLogLevel(LogLevel.None))
    const env = { TENANT: "a" }
    await expect(Promise.all([runtimes.acquire(env), runtimes.acquire(env)])).rejects.toThrow("no secret")
    await tick()
    expect(disposed).toEqual([1])
    fail = false
    const held = await runtimes.acquire(env)
    held.release()
    expect(builds).toBe(2)
  })
})
