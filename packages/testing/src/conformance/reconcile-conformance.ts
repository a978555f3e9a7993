import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { OrderStore, receive, reconcile, ReconcileCursors } from "@hookgate/core"
import type { Lease } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import type { WebhookProvider, WebhookRequest } from "@hookgate/core/providers"
import * as MemoryStore from "../MemoryStore.js"
import * as TestPipeline from "../TestPipeline.js"
import { ScriptedMailer } from "../scripted-mailer.js"

/** A paying object the suite places at the provider's stand-in. */
export interface ObjectToPublish {
  /** The provider's object id: what the order key is made of. */
  readonly id: string
  /** A paid object, or one that does not pay yet (a session still unpaid). */
  readonly paid: boolean
  readonly email: string
}

/** One world of the suite: the plugin with its listing pointed at a stand-in of the provider's API. */
export interface ReconcileWorld {
  readonly provider: WebhookProvider
  /** Places the object at the stand-in, and answers the signed webhook the provider would send for it. */
  readonly publish: (object: ObjectToPublish) => Effect.Effect<WebhookRequest>
}

/** A plugin that can reconcile, under test. */
export interface ReconcilingProviderUnderTest {
  readonly name: string
  /** A fresh world per case (a stand-in server in the scope). */
  readonly world: Effect.Effect<ReconcileWorld, never, Scope.Scope>
  /** The store the cases run on; default the memory store. */
  readonly store?: () => Layer.Layer<OrderStore | Lease | AlertStore, unknown>
}

/**
 * The reconciliation suite a plugin author runs: a listed object goes through the
 * plugin's own webhook decoding, so an order pulled and its webhook are one
 * order, in either order; unpaid objects are skipped; a second run finds nothing
 * new. Each case runs on a real pipeline over the plugin's stand-in (real time,
 * real HTTP):
 *
 *     reconcileConformance({ name: "acme", world: Effect.gen(function*() { … }) })
 */
export const reconcileConformance = (plugin: ReconcilingProviderUnderTest) =>
  describe(`reconcile conformance: ${plugin.name}`, () => {
    const run = <A, E>(body: (world: ReconcileWorld) => Effect.Effect<A, E, any>) =>
      Effect.scoped(Effect.gen(function*() {
        const world = yield* plugin.world
        const layer = Layer.merge(
          TestPipeline.layer({ store: plugin.store?.() ?? MemoryStore.layer, providers: [Effect.succeed(world.provider)] }),
          ReconcileCursors.layerMemory()
        )
        return yield* Effect.provide(body(world), layer)
      })) as Effect.Effect<A, unknown>
    const delivered = Effect.flatMap(ScriptedMailer, (mailer) => mailer.delivered)
    const only = { providers: [plugin.name] }

    it.live("the provider declares that it can list what was paid", () =>
      run((world) => Effect.sync(() => expect(world.provider.reconcile?._tag).toBe("ReconcileSource"))))

    it.live("webhook then pull = one order, one email", () =>
      run((world) =>
        Effect.gen(function*() {
          const webhook = yield* world.publish({ id: "obj_webhook_first", paid: true, email: "first@example.com" })
          const answered = yield* receive(world.provider.name, webhook)
          expect(answered._tag).toBe("Sent")
          const report = yield* reconcile(only)
          expect(report.providers[0]).toMatchObject({ seen: 1, known: 1, new: 0, unpaid: 0, error: null })
          const emails = yield* delivered
          expect(emails.map((e) => e.email.to)).toEqual(["first@example.com"])
          const order = yield* Effect.flatMap(OrderStore, (store) => store.list({ limit: 10 }))
          expect(order.map((o) => o.source)).toEqual(["webhook"])
        })
      ))

    it.live("pull then webhook = one order, the webhook answers duplicate", () =>
      run((world) =>
        Effect.gen(function*() {
          const webhook = yield* world.publish({ id: "obj_pull_first", paid: true, email: "pulled@example.com" })
          const report = yield* reconcile(only)
          expect(report.providers[0]).toMatchObject({ seen: 1, known: 0, new: 1, error: null })
          const answered = yield* receive(world.provider.name, webhook)
          expect(answered._tag).toBe("Duplicate")
          const emails = yield* delivered
          expect(emails.map((e) => e.email.to)).toEqual(["pulled@example.com"])
          const orders = yield* Effect.flatMap(OrderStore, (store) => store.list({ limit: 10 }))
          expect(orders.map((o) => [o.source, o.status])).toEqual([["reconcile", "sent"]])
          const alerts = yield* Effect.flatMap(AlertStore, (store) => store.list({ limit: 10 }))
          expect(alerts.filter((a) => a.kind === "webhooks_missing").map((a) => a.message)).toEqual([
            `1 paid order arrived only through reconciliation: check the webhook endpoint and secret (${plugin.name}: 1)`
          ])
        })
      ))

    it.live("unpaid objects are skipped", () =>
      run((world) =>
        Effect.gen(function*() {
          yield* world.publish({ id: "obj_unpaid", paid: false, email: "unpaid@example.com" })
          yield* world.publish({ id: "obj_paid", paid: true, email: "paid@example.com" })
          const report = yield* reconcile(only)
          expect(report.providers[0]).toMatchObject({ seen: 2, unpaid: 1, new: 1, known: 0 })
          expect((yield* delivered).map((e) => e.email.to)).toEqual(["paid@example.com"])
        })
      ))

    it.live("a second run finds nothing new, and a dry run stores nothing", () =>
      run((world) =>
        Effect.gen(function*() {
          yield* world.publish({ id: "obj_twice", paid: true, email: "twice@example.com" })
          const dry = yield* reconcile({ ...only, dryRun: true })
          expect(dry.providers[0]).toMatchObject({ new: 1, cursor: null })
          expect(yield* delivered).toHaveLength(0)
          const first = yield* reconcile(only)
          expect(first.providers[0]?.new).toBe(1)
          expect(first.providers[0]?.cursor).not.toBeNull()
          const second = yield* reconcile(only)
          expect(second.providers[0]).toMatchObject({ new: 0, known: 1 })
          expect(second.providers[0]?.since).toBeLessThan(first.providers[0]!.cursor!)
          expect(yield* delivered).toHaveLength(1)
        })
      ))
  })
