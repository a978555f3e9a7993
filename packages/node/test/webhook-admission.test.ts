import { HttpApp, HttpRouter, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Fiber, Logger, Option, TestClock } from "effect"
import { join } from "node:path"
import { makeAdmissionGate } from "../src/http/admission.js"
import { webhookAdmission } from "../src/http/webhook-admission.js"
import { runCli, STRIPE_SECRET, tempDir } from "./support/gateway-process.js"

/**
 * The admission gate in front of `POST /webhooks/…` (HOOKGATE_WEBHOOK_CONCURRENCY,
 * HOOKGATE_WEBHOOK_QUEUE_TIMEOUT): at most N webhooks in flight, the next ones wait first
 * come first served, and one that waits too long is answered 503 busy with Retry-After.
 * Time is the TestClock's; the requests go through @effect/platform's own request handling
 * (`HttpApp.toWebHandlerRuntime`), which runs middleware uninterruptibly, as the server does.
 */

const post = (path: string) => new Request(`http://gateway.test${path}`, { method: "POST", body: "{}" })

/** A router whose webhook route waits until `open` (again after `rearm`), counting the webhooks that started. */
const gatedApp = (options: { readonly concurrency: number; readonly queueTimeout: Duration.DurationInput }) =>
  Effect.gen(function*() {
    let gate = yield* Deferred.make<void>()
    const started: Array<string> = []
    const router = HttpRouter.empty.pipe(
      HttpRouter.post(
        "/webhooks/:provider",
        Effect.flatMap(HttpRouter.params, (params) =>
          Effect.sync(() => started.push(params.provider ?? "")).pipe(
            Effect.zipRight(Effect.suspend(() => Deferred.await(gate))),
            Effect.as(HttpServerResponse.unsafeJson({ status: "sent" }))
          ))
      ),
      HttpRouter.get("/healthz", HttpServerResponse.unsafeJson({ status: "ok" }))
    )
    const middleware = yield* webhookAdmission(options)
    const handler = HttpApp.toWebHandlerRuntime(yield* Effect.runtime<never>())(router, middleware)
    const send = (request: Request) => Effect.promise(() => handler(request))
    const open = Effect.suspend(() => Deferred.succeed(gate, undefined))
    const rearm = Effect.map(Deferred.make<void>(), (next) => void (gate = next))
    return { open, rearm, started, send }
  })

/** Lets forked requests run up to their next wait. */
const settle = Effect.repeatN(Effect.yieldNow(), 50)

describe("webhook admission", () => {
  it.effect("a webhook past the concurrency waits for a slot, first come first served", () =>
    Effect.gen(function*() {
      const app = yield* gatedApp({ concurrency: 1, queueTimeout: "2 seconds" })
      const first = yield* Effect.fork(app.send(post("/webhooks/a")))
      yield* settle
      const second = yield* Effect.fork(app.send(post("/webhooks/b")))
      yield* settle
      const third = yield* Effect.fork(app.send(post("/webhooks/c")))
      yield* settle
      expect(app.started).toEqual(["a"])
      yield* app.open
      const answers = yield* Effect.all([Fiber.join(first), Fiber.join(second), Fiber.join(third)])
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200])
      expect(app.started).toEqual(["a", "b", "c"])
    }))

  it.effect("a webhook with no slot within the queue timeout is answered 503 busy with Retry-After; other routes pass", () =>
    Effect.gen(function*() {
      const app = yield* gatedApp({ concurrency: 1, queueTimeout: "2 seconds" })
      const first = yield* Effect.fork(app.send(post("/webhooks/a")))
      yield* settle
      const second = yield* Effect.fork(app.send(post("/webhooks/b")))
      yield* settle
      // The gate is full: health still answers at once.
      expect((yield* app.send(new Request("http://gateway.test/healthz"))).status).toBe(200)
      yield* TestClock.adjust("1999 millis")
      yield* settle
      expect(Option.isNone(yield* Fiber.poll(second))).toBe(true)
      yield* TestClock.adjust("1 millis")
      const refused = yield* Fiber.join(second)
      expect(refused.status).toBe(503)
      expect(refused.headers.get("retry-after")).toBe("2")
      expect(yield* Effect.promise(() => refused.json())).toEqual({ status: "unavailable", reason: "busy" })
      // The refused webhook never started; the first finishes as usual.
      yield* app.open
      expect((yield* Fiber.join(first)).status).toBe(200)
      expect(app.started).toEqual(["a"])
    }))

  it.effect("a queue timeout of 0 refuses at once when every slot is taken", () =>
    Effect.gen(function*() {
      const app = yield* gatedApp({ concurrency: 2, queueTimeout: Duration.zero })
      const running = yield* Effect.fork(Effect.all([app.send(post("/webhooks/a")), app.send(post("/webhooks/b"))], { concurrency: 2 }))
      yield* settle
      const refused = yield* app.send(post("/webhooks/c"))
      expect(refused.status).toBe(503)
      expect(refused.headers.get("retry-after")).toBe("1")
      yield* app.open
      expect((yield* Fiber.join(running)).map((r) => r.status)).toEqual([200, 200])
    }))

  it.effect("an overload is logged once (WARN, with the load), and again only after a webhook was admitted with nobody waiting", () => {
    const lines: Array<string> = []
    const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ logLevel, message }) => {
      lines.push(`${logLevel.label} ${Array.isArray(message) ? message.join(" ") : String(message)}`)
    }))
    return Effect.gen(function*() {
      const app = yield* gatedApp({ concurrency: 1, queueTimeout: Duration.zero })
      const first = yield* Effect.fork(app.send(post("/webhooks/a")))
      yield* settle
      for (const name of ["b", "c", "d"]) expect((yield* app.send(post(`/webhooks/${name}`))).status).toBe(503)
      expect(lines.filter((l) => l.includes("busy"))).toEqual(["WARN webhooks refused: busy"])
      yield* app.open
      yield* Fiber.join(first)
      // Admitted with nobody waiting: the overload is over, and the next one is logged again.
      yield* app.rearm
      const again = yield* Effect.fork(app.send(post("/webhooks/e")))
      yield* settle
      expect((yield* app.send(post("/webhooks/f"))).status).toBe(503)
      expect(lines.filter((l) => l.includes("busy"))).toEqual(["WARN webhooks refused: busy", "WARN webhooks refused: busy"])
      yield* app.open
      expect((yield* Fiber.join(again)).status).toBe(200)
    }).pipe(Effect.provide(logger))
  })

  it.effect("a waiter that is interrupted (its client hung up) leaves the line; a finished webhook frees its slot", () =>
    Effect.gen(function*() {
      const gate = yield* makeAdmissionGate({ concurrency: 1, queueTimeout: "1 minute" })
      const hold = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(Effect.uninterruptible(gate.admit(Deferred.await(hold))))
      yield* settle
      const waiter = yield* Effect.fork(Effect.uninterruptible(gate.admit(Effect.void)))
      yield* settle
      expect(yield* gate.load).toEqual({ inFlight: 1, waiting: 1 })
      yield* Fiber.interrupt(waiter)
      expect(yield* gate.load).toEqual({ inFlight: 1, waiting: 0 })
      yield* Deferred.succeed(hold, undefined)
      expect(Option.isSome(yield* Fiber.join(holder))).toBe(true)
      expect(yield* gate.load).toEqual({ inFlight: 0, waiting: 0 })
      expect(Option.isSome(yield* gate.admit(Effect.void))).toBe(true)
    }))
  it.live("webhooks interrupted while waiting, while worked on, or as a slot is handed to them give back every slot", () =>
    Effect.gen(function*() {
      const SLOTS = 3
      const gate = yield* makeAdmissionGate({ concurrency: SLOTS, queueTimeout: "1 minute" })
      const work = yield* Deferred.make<void>()
      // Like a route: the webhook's work is interruptible, the gate's middleware is not.
      const webhook = Effect.uninterruptible(gate.admit(Effect.interruptible(Deferred.await(work))))
      const fibers = yield* Effect.forEach(Array.from({ length: 12 }), () => Effect.fork(webhook))
      yield* settle
      expect(yield* gate.load).toEqual({ inFlight: SLOTS, waiting: 12 - SLOTS })
      // At once, on real fibers: two admitted ones and every other waiter are interrupted, so
      // slots are handed to waiters that are being interrupted in the same step.
      const interrupted = fibers.filter((_, i) => i < 2 || (i >= SLOTS && i % 2 === 0))
      yield* Effect.forEach(interrupted, Fiber.interrupt, { concurrency: "unbounded", discard: true })
      yield* Deferred.succeed(work, undefined)
      const exits = yield* Effect.forEach(fibers, Fiber.await)
      expect(exits.filter(Exit.isInterrupted)).toHaveLength(interrupted.length)
      expect(exits.filter((exit) => Exit.isSuccess(exit) && Option.isSome(exit.value))).toHaveLength(12 - interrupted.length)
      expect(yield* gate.load).toEqual({ inFlight: 0, waiting: 0 })
      // Every slot is free: as many webhooks as slots are admitted at once.
      const hold = yield* Deferred.make<void>()
      const again = yield* Effect.forEach(Array.from({ length: SLOTS }), () => Effect.fork(gate.admit(Deferred.await(hold))))
      yield* settle
      expect(yield* gate.load).toEqual({ inFlight: SLOTS, waiting: 0 })
      yield* Deferred.succeed(hold, undefined)
      yield* Effect.forEach(again, Fiber.join)
    }))
})

describe("admission settings", () => {
  const check = (env: Record<string, string>) =>
    runCli({ HOOKGATE_DB: join(tempDir(), "db"), STRIPE_WEBHOOK_SECRET: STRIPE_SECRET, ...env }, ["config", "check"])

  it("config check shows the defaults (the gate on, 32 slots; `off` turns it off), and reports bad values with the other problems", async () => {
    const defaults = await check({})
    expect(defaults.code, defaults.stderr).toBe(0)
    expect(defaults.stdout).toMatch(/^HOOKGATE_WEBHOOK_CONCURRENCY\s+32$/m)
    expect(defaults.stdout).toMatch(/^HOOKGATE_WEBHOOK_QUEUE_TIMEOUT\s+2s$/m)
    const off = await check({ HOOKGATE_WEBHOOK_CONCURRENCY: "off" })
    expect(off.code, off.stderr).toBe(0)
    expect(off.stdout).toMatch(/^HOOKGATE_WEBHOOK_CONCURRENCY\s+off$/m)
    const refused = await check({ HOOKGATE_WEBHOOK_CONCURRENCY: "0", HOOKGATE_WEBHOOK_QUEUE_TIMEOUT: "soon", PORT: "abc" })
    expect(refused.code).toBe(1)
    const problems = refused.stderr.split("\n").filter((l) => l.startsWith("  ")).map((p) => p.trim().split(":")[0]).sort()
    expect(problems).toEqual(["HOOKGATE_WEBHOOK_CONCURRENCY", "HOOKGATE_WEBHOOK_QUEUE_TIMEOUT", "PORT"])
  }, 60_000)
})
