import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpApp from "@effect/platform/HttpApp"
import { expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { RetryPolicy } from "@hookgate/core"
import { CampaignInProcessQueue, Campaigns, CampaignStore } from "@hookgate/core/campaigns"
import { adminRoutes } from "@hookgate/core/http"
import { RecordingAlerter } from "../recording-alerter.js"
import { ScriptedMailer } from "../scripted-mailer.js"
import { realPause } from "../fixtures.js"
import { recipients, TEMPLATE } from "./campaign-store-conformance.js"
import type { LedgerServices } from "./ledger-services.js"

const TOKEN = "sealed-cases-token"

/** Each recipient's count of emails delivered by the scripted mailer. */
const emailsPerRecipient = Effect.map(Effect.flatMap(ScriptedMailer, (m) => m.delivered), (delivered) => {
  const counts = new Map<string, number>()
  for (const d of delivered) counts.set(d.email.to, (counts.get(d.email.to) ?? 0) + 1)
  return counts
})

/**
 * A campaign starts only once its recipient list is complete: `start` while `create` is
 * still streaming recipients in is refused (409, "still being written"), never started on
 * the part already stored; once the create has sealed the list, the start sends to all of
 * it. Real concurrency on every store: the admin routes' HTTP handler, the in-process queue.
 */
export const campaignSealedCases = (makeLayer: () => Layer.Layer<LedgerServices, unknown>) => {
  const layer = () =>
    Campaigns.layerInProcess({ concurrency: 4, maxRetries: 10 }).pipe(
      Layer.provideMerge(Layer.mergeAll(
        makeLayer(),
        ScriptedMailer.layer({ batch: true }),
        RecordingAlerter.layer(),
        RetryPolicy.layer({ inRequestBase: 0, backoffBase: "20 millis" }),
        Logger.minimumLogLevel(LogLevel.Error)
      ))
    )

  /** The admin routes as a Web handler on the test's own services (only campaign routes are called). */
  const httpHandler = Effect.map(Effect.runtime<Campaigns>(), (runtime) => {
    const routes = adminRoutes({ token: Redacted.make(TOKEN), campaigns: {} }) as unknown as HttpRouter.HttpRouter<unknown, Campaigns>
    const handler = HttpApp.toWebHandlerRuntime(runtime)(routes)
    return (path: string, init: RequestInit & { duplex?: "half" } = {}) =>
      Effect.promise(async () => {
        const response = await handler(new Request(`http://hookgate.test${path}`, {
          ...init,
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}`, ...(init.headers ?? {}) }
        }))
        return { status: response.status, body: (await response.json()) as Record<string, unknown> }
      })
  })

  it.live("a start while create streams its recipients over HTTP is 409; started once sealed, every recipient gets one email", () =>
    Effect.gen(function*() {
      const call = yield* httpHandler
      const store = yield* CampaignStore
      // An NDJSON body written in two parts: 1,500 recipients, then (once the start was tried) 500 more.
      const rest = yield* Deferred.make<void>()
      const release = Effect.runPromise(Deferred.await(rest))
      const lines = (from: number, to: number) => recipients(to).slice(from).map((r) => `${JSON.stringify(r)}\n`).join("")
      const encoder = new TextEncoder()
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(encoder.encode(`${JSON.stringify({ id: "big", template: TEMPLATE })}\n${lines(0, 1_500)}`))
          await release
          controller.enqueue(encoder.encode(lines(1_500, 2_000)))
          controller.close()
        }
      })
      const create = yield* Effect.fork(
        call("/admin/campaigns", { body, duplex: "half", headers: { "content-type": "application/x-ndjson" } })
      )
      // Recipients are in the ledger: the create is under way, its list not complete.
      yield* waitUntil(Effect.map(store.counts("big"), (c) => c.queued >= 1_000))
      const early = yield* call("/admin/campaigns/big/start")
      // The rest of the body; everything settles before anything is checked.
      yield* Deferred.succeed(rest, undefined)
      const created = yield* Fiber.join(create)
      const started = yield* call("/admin/campaigns/big/start")
      yield* Effect.flatMap(CampaignInProcessQueue, (q) => q.idle)
      expect(early.status).toBe(409)
      expect(early.body).toMatchObject({ status: "conflict", state: "draft", operation: "start" })
      expect(early.body["detail"]).toContain("still being written")
      expect(created).toMatchObject({ status: 201, body: { id: "big", state: "draft", total: 2_000 } })
      expect(started).toMatchObject({ status: 200, body: { state: "running", total: 2_000 } })
      const emails = yield* emailsPerRecipient
      expect(emails.size).toBe(2_000)
      expect([...emails.values()].every((n) => n === 1)).toBe(true)
    }).pipe(Effect.provide(layer())), 60_000)

  it.live("starts racing a create that yields between recipients: never a partial list, whichever start wins", () =>
    Effect.gen(function*() {
      const campaigns = yield* Campaigns
      const call = yield* httpHandler
      const count = 1_200
      // Slowed: a real pause every ten recipients (a file or a request body arriving).
      const create = yield* Effect.fork(campaigns.create({
        id: "race",
        template: TEMPLATE,
        recipients: Stream.fromIterable(recipients(count)).pipe(
          Stream.zipWithIndex,
          Stream.tap(([, i]) => (i % 10 === 0 ? realPause(1) : Effect.yieldNow())),
          Stream.map(([recipient]) => recipient)
        )
      }))
      // Rows are in the ledger; start after start through HTTP until one is 200: each refused one is a 409.
      yield* waitUntil(Effect.map(Effect.flatMap(CampaignStore, (s) => s.counts("race")), (c) => c.queued > 0))
      const refusals: Array<{ readonly status: number; readonly body: Record<string, unknown> }> = []
      let started = yield* call("/admin/campaigns/race/start")
      while (started.status !== 200 && refusals.length < 100_000) {
        refusals.push(started)
        yield* Effect.yieldNow()
        started = yield* call("/admin/campaigns/race/start")
      }
      yield* Fiber.join(create)
      yield* Effect.flatMap(CampaignInProcessQueue, (q) => q.idle)
      expect(started.body).toMatchObject({ state: "running", total: count })
      expect(refusals.length).toBeGreaterThan(0)
      for (const refused of refusals) {
        expect(refused).toMatchObject({ status: 409, body: { state: "draft", detail: expect.stringContaining("still being written") } })
      }
      expect(yield* campaigns.status("race")).toMatchObject({ state: "completed", total: count, sent: count })
      const emails = yield* emailsPerRecipient
      expect(emails.size).toBe(count)
      expect([...emails.values()].every((n) => n === 1)).toBe(true)
    }).pipe(Effect.provide(layer())), 60_000)
}

/** Polls (in real time) until `check` holds, for up to about ten seconds. */
const waitUntil = <E, R>(effect: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 2_000; i++) {
      if (yield* effect) return
      yield* realPause(5)
    }
    return yield* Effect.dieMessage("condition never held")
  })
