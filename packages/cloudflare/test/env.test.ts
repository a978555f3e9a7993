import { describe, expect, it } from "@effect/vitest"
import { Cloudflare } from "@hookgate/cloudflare"
import { OrderStore } from "@hookgate/core"
import { Config, Effect, Layer, Redacted } from "effect"
import { Miniflare } from "miniflare"

describe("bindings and secrets from env", () => {
  const env = {
    STRIPE_WEBHOOK_SECRET: "whsec_abc",
    MAILER: "resend",
    DB: { prepare: () => {}, batch: () => {} },
    EMAIL: { send: () => {} }
  }

  it.effect("vars and secrets are Config; secrets read as Redacted; bindings are not config", () =>
    Effect.gen(function*() {
      const secret = yield* Config.redacted("STRIPE_WEBHOOK_SECRET")
      expect(Redacted.value(secret)).toBe("whsec_abc")
      expect(String(secret)).toBe("<redacted>")
      expect(yield* Config.string("MAILER")).toBe("resend")
      expect((yield* Effect.either(Config.string("DB")))._tag).toBe("Left")
    }).pipe(Effect.withConfigProvider(Cloudflare.configProviderFromEnv(env))))

  it.effect("binding checks the binding is there and has the methods asked for", () =>
    Effect.gen(function*() {
      expect(yield* Cloudflare.binding<{ send: () => void }>("EMAIL", "send")).toBe(env.EMAIL)
      const missing = yield* Effect.flip(Cloudflare.binding("QUEUE"))
      expect(missing).toMatchObject({ _tag: "MissingBinding", name: "QUEUE" })
      const wrong = yield* Effect.flip(Cloudflare.binding("MAILER", "send"))
      expect(wrong.message).toContain("has no binding \"MAILER\" (with send)")
    }).pipe(Effect.provideService(Cloudflare.WorkerEnv, env)))

  it.effect("layerD1Store fails with MissingBinding when env has no such D1 binding", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.provide(OrderStore, Cloudflare.layerD1Store({ binding: "NOPE" })))
      expect(error._tag).toBe("MissingBinding")
    }).pipe(Effect.provideService(Cloudflare.WorkerEnv, env)))

  it.effect("layerD1Store serves the store on a real D1 binding, migrating it when asked", () =>
    Effect.gen(function*() {
      const mf = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const mf = new Miniflare({ modules: true, script: "export default {}", d1Databases: { HOOKGATE_DB: "db" } })
          await mf.ready
          return mf
        }),
        (mf) => Effect.promise(() => mf.dispose())
      )
      const db = yield* Effect.promise(() => mf.getD1Database("HOOKGATE_DB"))
      const stats = yield* Effect.flatMap(OrderStore, (store) => store.stats).pipe(
        Effect.provide(Cloudflare.layerD1Store({ binding: "HOOKGATE_DB", migrate: true }).pipe(
          Layer.provide(Layer.succeed(Cloudflare.WorkerEnv, { HOOKGATE_DB: db }))
        ))
      )
      expect(stats.orders).toEqual({ pending: 0, sent: 0, failed: 0, capped: 0, unknown: 0 })
    }).pipe(Effect.scoped))
})
