import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Scheduler } from "effect"
import { Agent, createServer, request } from "node:http"
import { layerTimeSlicedScheduler, timeSlicedScheduler } from "../src/http/time-sliced-scheduler.js"

/**
 * The scheduler `hookgate serve` runs its fibers on (time-sliced-scheduler.ts): it keeps the
 * default scheduler's order, hands the event loop back once a turn's budget is spent, and so
 * lets a busy server accept a burst of new connections, which libuv does one per turn.
 */

/** Keeps the CPU busy for `ms` (a step of a webhook's work: verifying, storing, rendering). */
const busy = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // spin
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50))

/** The order in which `scheduler` runs a mix of tasks: priorities, and tasks scheduled by tasks. */
const runOrder = async (scheduler: Scheduler.Scheduler) => {
  const order: Array<string> = []
  const task = (name: string, then?: () => void) => () => {
    order.push(name)
    then?.()
  }
  scheduler.scheduleTask(task("a0", () => scheduler.scheduleTask(task("d0"), 0)), 0)
  scheduler.scheduleTask(task("b1", () => scheduler.scheduleTask(task("e1"), 1)), 1)
  scheduler.scheduleTask(task("c0"), 0)
  scheduler.scheduleTask(task("f2"), 2)
  await settle()
  return order
}

describe("timeSlicedScheduler", () => {
  it("runs tasks in the default scheduler's order", async () => {
    const expected = await runOrder(Scheduler.defaultScheduler)
    expect(expected).toHaveLength(6)
    expect(await runOrder(timeSlicedScheduler({ sliceMs: 5 }))).toEqual(expected)
  })

  it("keeps the order when a turn's budget runs out between tasks", async () => {
    const scheduler = timeSlicedScheduler({ sliceMs: 1 })
    const order: Array<number> = []
    for (let i = 0; i < 20; i++) {
      scheduler.scheduleTask(() => {
        busy(0.5)
        order.push(i)
      }, 0)
    }
    await settle()
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i))
    expect(scheduler.slicedTurns()).toBeGreaterThan(0)
  })

  it("gives the event loop a turn while fibers still have work; the default scheduler runs them all first", async () => {
    // 40 fibers of 4 steps of 0.5 ms each: 80 ms of work, started at once.
    const work = Effect.forEach([1, 2, 3, 4], () => Effect.sync(() => busy(0.5)), { discard: true })
    const doneWhenTheLoopTurned = async (scheduler: Scheduler.Scheduler) => {
      let done = 0
      const turned = new Promise<number>((resolve) => setImmediate(() => resolve(done)))
      await Effect.runPromise(Effect.forEach(Array.from({ length: 40 }), () => Effect.fork(work.pipe(Effect.tap(() => done++)))).pipe(
        Effect.flatMap(Fiber.joinAll),
        Effect.withScheduler(scheduler)
      ))
      return { seen: await turned, done }
    }
    expect(await doneWhenTheLoopTurned(Scheduler.defaultScheduler)).toEqual({ seen: 40, done: 40 })
    const sliced = await doneWhenTheLoopTurned(timeSlicedScheduler({ sliceMs: 5 }))
    expect(sliced.done).toBe(40)
    expect(sliced.seen).toBeLessThan(20)
  })
})

/**
 * A server doing CPU work per request (4 steps of 0.5 ms), hammered by 32 keep-alive connections;
 * then 40 new connections open at once, each sending one request. Counted: the answers the
 * hammering connections get until the last new connection is answered. On the default
 * scheduler each turn of the loop serves every hammering request that is ready (~60 ms), and
 * libuv accepts one connection per turn; sliced, a turn holds about 5 ms of work.
 */
const answersBeforeTheBurstIsServed = (sliced: boolean) =>
  Effect.scoped(Effect.gen(function*() {
    const app = HttpRouter.empty.pipe(HttpRouter.get("/", Effect.gen(function*() {
      for (let step = 0; step < 4; step++) yield* Effect.sync(() => busy(0.5))
      return HttpServerResponse.text("ok")
    })))
    const server = HttpServer.serve(app).pipe(
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
      Layer.provide(sliced ? layerTimeSlicedScheduler : Layer.empty)
    )
    const { address } = Context.get(yield* Layer.build(server), HttpServer.HttpServer)
    const port = address._tag === "TcpAddress" ? address.port : 0
    const get = (agent: Agent | false) =>
      new Promise<void>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, path: "/", agent }, (res) => {
          res.resume()
          res.on("end", resolve)
        })
        req.on("error", reject)
        req.end()
      })
    return yield* Effect.promise(async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 32 })
      let answers = 0
      let hammering = true
      const hammer = async () => {
        while (hammering) {
          await get(agent)
          answers++
        }
      }
      const hammers = Array.from({ length: 32 }, hammer)
      // Every hammering connection is open and busy.
      while (answers < 64) await new Promise((resolve) => setTimeout(resolve, 5))
      const before = answers
      await Promise.all(Array.from({ length: 40 }, () => get(false)))
      const during = answers - before
      hammering = false
      await Promise.all(hammers)
      agent.destroy()
      return during
    })
  }))

describe("a busy server and a burst of new connections", () => {
  it.live("sliced, it accepts them while it keeps serving the busy connections: several times fewer answers go to those first", () =>
    Effect.gen(function*() {
      const unsliced = yield* answersBeforeTheBurstIsServed(false)
      const sliced = yield* answersBeforeTheBurstIsServed(true)
      // One connection accepted per turn: 40 turns of ~32 answers, against 40 turns of a few.
      expect(unsliced).toBeGreaterThan(400)
      expect(sliced * 3).toBeLessThan(unsliced)
    }), 60_000)
})
