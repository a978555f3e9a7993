import { SqliteStore } from "@hookgate/store-sqlite"
import { MemoryLedgers, MemoryStore } from "@hookgate/testing"
import { Effect, Layer } from "effect"
import { simulated } from "./engine.js"
import { RealIo } from "./real-io.js"

/**
 * The stores a simulation runs on: the in-memory doubles, SQLite in memory (no
 * file, no fsync: the same SQL), D1 on Miniflare's workerd, Postgres on a
 * throwaway server. Each shard gets a fresh store: a new in-memory one, a new
 * Miniflare with an empty D1 database, a new Postgres database.
 */
export type StoreKind = "memory" | "sqlite" | "d1" | "pg"

export const storeKinds: ReadonlyArray<StoreKind> = ["memory", "sqlite", "d1", "pg"]

/** Whether the store is real I/O (its worlds run on `Simulation.runAsync`, on one thread). */
export const isRealIo = (kind: StoreKind) => kind === "d1" || kind === "pg"

const memoryLayer = MemoryLedgers.layer.pipe(Layer.provideMerge(MemoryStore.layer))

// Loaded on first use, so that memory and SQLite runs load neither Miniflare nor pg.
interface Backend {
  readonly dispose: () => Promise<unknown>
}
const d1 = () => import("./d1.js")
const pg = () => import("./pg.js")
const loaded = new Map<() => Promise<Backend>, Promise<Backend>>()
const load = <M extends Backend>(module: () => Promise<M>) =>
  Effect.promise(() => {
    if (!loaded.has(module)) loaded.set(module, module())
    return loaded.get(module) as Promise<M>
  })

export type StoreServices = Layer.Layer.Success<typeof memoryLayer>

/**
 * Runs `world` (given its store layer) in a fresh simulated world on a fresh
 * store of `kind`; the D1 or Postgres database is made before the world starts
 * (real I/O outside simulated time) and dropped after it.
 */
export const inStoreWorld = <A, E>(
  kind: StoreKind,
  world: (store: Layer.Layer<StoreServices, unknown>) => Effect.Effect<A, E>
): Effect.Effect<A, E | unknown> => {
  switch (kind) {
    case "memory":
      return simulated(world(memoryLayer))
    case "sqlite":
      return simulated(world(SqliteStore.layer({ filename: ":memory:" })))
    case "d1":
      return Effect.flatMap(load(d1), ({ d1Binding, d1StoreLayer, freshD1 }) =>
        Effect.acquireUseRelease(
          Effect.promise(freshD1),
          (target) => {
            const binding = d1Binding(target)
            const io = new RealIo({ rounds: true, flush: binding.flush })
            binding.attach(io)
            return simulated(world(d1StoreLayer(binding.db)), io)
          },
          (target) => Effect.promise(target.dispose)
        ))
    case "pg":
      return Effect.flatMap(load(pg), ({ freshPg, pgStoreLayer, pgWorldIo }) =>
        Effect.acquireUseRelease(
          Effect.promise(async () => {
            const database = await freshPg()
            return { database, world: await pgWorldIo(database.name) }
          }),
          ({ database, world: { io } }) => simulated(world(pgStoreLayer(database.url)), io),
          ({ database, world }) => Effect.promise(() => world.close().then(database.drop))
        ))
  }
}

/**
 * Runs `shard` for each shard, each in a world of its own, and answers their
 * tallies in shard order. D1's worlds run several at once: each waits on round
 * trips to workerd, not on the CPU, and holds only its own calls. Postgres's run
 * one at a time (its calls are tracked for the running world, `RealIo.active`).
 */
export const eachShard = <S, T>(kind: StoreKind, shards: ReadonlyArray<S>, shard: (shard: S) => Effect.Effect<T, unknown>) =>
  Effect.forEach(shards, shard, { concurrency: kind === "d1" ? D1_WORLDS : 1 })

/** D1 worlds at once (each with its workerd). */
const D1_WORLDS = 5

/** Stops the Miniflare and Postgres servers this thread started for D1 and Postgres worlds. */
export const disposeStores = async () => {
  const modules = [...loaded.values()]
  loaded.clear()
  await Promise.all(modules.map(async (module) => (await module).dispose()))
}
