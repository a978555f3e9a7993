import { OrderStore } from "@hookgate/core"
import { SqliteStore } from "@hookgate/store-sqlite"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { createInterface } from "node:readline"

const worker = fileURLToPath(new URL("./fixtures/race-worker.mjs", import.meta.url))
const built = fileURLToPath(new URL("../dist/src/index.js", import.meta.url))
const COUNT = 1000

type Result = { stored: Array<string>; takenOver: Array<string> }

/** Starts two workers, releases them together once both are ready, and collects their results. */
const race = async (filename: string): Promise<[Result, Result]> => {
  const workers = [0, 1].map(() => {
    const child = spawn(process.execPath, [worker, filename, String(COUNT)], { stdio: ["pipe", "pipe", "inherit"] })
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
    return { child, next: async () => (await lines.next()).value as string }
  })
  for (const w of workers) expect(await w.next()).toBe("ready")
  for (const w of workers) w.child.stdin.write("go\n")
  const [a, b] = await Promise.all(workers.map(async (w) => JSON.parse(await w.next()) as Result))
  return [a!, b!]
}

describe("two processes on one SQLite file", () => {
  it.live("store each order once and hand each expired lease to one of them", () =>
    Effect.gen(function*() {
      expect(existsSync(built), "run `tsc -b` first (npm test does)").toBe(true)
      const filename = join(mkdtempSync(join(tmpdir(), "hookgate-race-")), "race.db")
      // Migrate once before the race, as a deployment would.
      yield* Effect.provide(Effect.flatMap(OrderStore, (s) => s.stats), SqliteStore.layer({ filename }))
      const [a, b] = yield* Effect.promise(() => race(filename))
      const stored = [...a.stored, ...b.stored]
      const takenOver = [...a.takenOver, ...b.takenOver]
      expect(stored).toHaveLength(COUNT)
      expect(new Set(stored).size).toBe(COUNT)
      expect(takenOver).toHaveLength(COUNT)
      expect(new Set(takenOver).size).toBe(COUNT)
      const stats = yield* Effect.provide(
        Effect.flatMap(OrderStore, (s) => s.stats),
        SqliteStore.layer({ filename })
      )
      expect(stats.orders.pending).toBe(COUNT)
    }), 60_000)
})
