import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Consumer } from "@hookgate/core/queue"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Effect, Ref } from "effect"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

const worker = fileURLToPath(new URL("./fixtures/once-worker.mjs", import.meta.url))
const built = fileURLToPath(new URL("../dist/src/index.js", import.meta.url))

/** The work a message asks for: a charge, which fails on its first run (after the id was recorded). */
const chargeOnce = (charges: Ref.Ref<number>, runs: Ref.Ref<number>) =>
  Effect.flatMap(Ref.updateAndGet(runs, (n) => n + 1), (run) =>
    run === 1 ? Effect.fail("payment provider timed out" as const) : Ref.update(charges, (n) => n + 1))

describe("Consumer.once on SQLite", () => {
  it.effect("'insert the id, then do the work' loses the work when it fails after the insert; once does not", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE processed_messages (id TEXT PRIMARY KEY)`
      const deliver = <A, E, R>(handler: Effect.Effect<A, E, R>) => Effect.either(handler)

      // The common pattern: record the id, then act. The first delivery records it and fails;
      // the redelivery finds the id and skips: the charge never happens.
      const naiveCharges = yield* Ref.make(0)
      const naiveRuns = yield* Ref.make(0)
      const naive = Effect.gen(function*() {
        const inserted = yield* sql`INSERT INTO processed_messages (id) VALUES (${"order-8812-charge"}) ON CONFLICT DO NOTHING RETURNING id`
        if (inserted.length === 0) return // "already processed"
        yield* chargeOnce(naiveCharges, naiveRuns)
      })
      yield* deliver(naive)
      yield* deliver(naive)
      yield* deliver(naive)
      expect(yield* Ref.get(naiveCharges)).toBe(0)

      // once: the failed run releases its lease, the redelivery runs it, a third delivery does nothing.
      const charges = yield* Ref.make(0)
      const runs = yield* Ref.make(0)
      const handler = Consumer.once("order-8812-charge", chargeOnce(charges, runs))
      expect((yield* deliver(handler))._tag).toBe("Left")
      expect((yield* deliver(handler))._tag).toBe("Right")
      expect((yield* deliver(handler))._tag).toBe("Right")
      expect(yield* Ref.get(charges)).toBe(1)
      expect(yield* Ref.get(runs)).toBe(2)
    }).pipe(Effect.provide(SqliteStore.layer({ filename: ":memory:" }))))

  it.live("two processes delivering the same 300 messages twice each: every side effect happens once", () =>
    Effect.gen(function*() {
      expect(existsSync(built), "run `tsc -b` first (npm test does)").toBe(true)
      const dir = mkdtempSync(join(tmpdir(), "hookgate-once-"))
      const filename = join(dir, "once.db")
      const effectsFile = join(dir, "effects.log")
      writeFileSync(effectsFile, "")
      // Migrate once before the race, as a deployment would.
      yield* Effect.provide(SqlClient.SqlClient, SqliteStore.layer({ filename }))
      const COUNT = 300
      const results = yield* Effect.promise(async () => {
        const workers = ["a", "b"].map((name) => {
          const child = spawn(process.execPath, [worker, filename, effectsFile, String(COUNT), name], {
            stdio: ["pipe", "pipe", "inherit"]
          })
          const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
          return { child, next: async () => (await lines.next()).value as string }
        })
        for (const w of workers) expect(await w.next()).toBe("ready")
        for (const w of workers) w.child.stdin.write("go\n")
        return Promise.all(workers.map(async (w) => JSON.parse(await w.next()) as Record<string, number>))
      })
      const lines = readFileSync(effectsFile, "utf8").trim().split("\n")
      const keys = lines.map((line) => line.split(" ")[0])
      expect(keys).toHaveLength(COUNT)
      expect(new Set(keys).size).toBe(COUNT)
      // Both processes ran some of the work: they really competed.
      expect(results[0]!["Ran"]).toBeGreaterThan(0)
      expect(results[1]!["Ran"]).toBeGreaterThan(0)
      expect(results[0]!["Ran"]! + results[1]!["Ran"]!).toBe(COUNT)
      const answered = results.reduce((sum, r) => sum + r["Ran"]! + r["AlreadyDone"]! + r["InProgress"]!, 0)
      expect(answered).toBe(COUNT * 4)
    }), 60_000)
})
