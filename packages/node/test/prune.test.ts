import { EventReceipt, Lease, OrderStore } from "@hookgate/core"
import { SendReceipt } from "@hookgate/core/mail"
import { SqliteStore } from "@hookgate/store-sqlite"
import { newOrder } from "@hookgate/testing"
import { Effect } from "effect"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { baseEnv, runCli, tempDir } from "./support/gateway-process.js"

/** `hookgate prune` as an operator types it, on a SQLite file with orders from long ago and from today. */

const DAY = 86_400_000

/** Orders written as the gateway writes them, `ageDays` ago: sent ones, and one still pending. */
const seed = (filename: string, orders: ReadonlyArray<{ readonly id: string; readonly ageDays: number; readonly sent: boolean }>) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const store = yield* OrderStore
    const lease = yield* Lease
    for (const { ageDays, id, sent } of orders) {
      const now = Date.now() - ageDays * DAY
      const token = crypto.randomUUID()
      const order = yield* newOrder(id)
      yield* store.put(order, { token, now, until: now + 60_000 })
      yield* store.recordReceipt(new EventReceipt({ provider: "test", eventId: `evt_${id}`, eventType: "paid", orderKey: order.key, outcome: "duplicate", receivedAt: now }))
      if (sent) yield* lease.complete(order.key, token, new SendReceipt({ mailer: "m", messageId: `m_${id}`, acceptedAt: now }), { mailerHonoursKeys: true, now })
    }
  }).pipe(Effect.provide(SqliteStore.layer({ filename })))))

const keysIn = (filename: string) =>
  Effect.runPromise(Effect.gen(function*() {
    const store = yield* OrderStore
    return (yield* store.list({ limit: 100 })).map((o) => o.key).sort()
  }).pipe(Effect.provide(SqliteStore.layer({ filename }))))

describe("hookgate prune", () => {
  it("deletes finished orders older than the cutoff with their receipts; keeps pending and recent ones; --dry-run deletes nothing", async () => {
    const dir = tempDir()
    const env = baseEnv(dir)
    const db = join(dir, "hookgate.db")
    await seed(db, [
      { id: "old-1", ageDays: 400, sent: true },
      { id: "old-2", ageDays: 200, sent: true },
      { id: "old-pending", ageDays: 200, sent: false },
      { id: "recent", ageDays: 10, sent: true }
    ])

    const dry = await runCli(env, ["prune", "--older-than", "180d", "--dry-run"])
    expect(dry.code).toBe(0)
    expect(dry.stdout).toMatch(/orders\s+2$/m)
    expect(dry.stdout).toMatch(/receipts\s+2$/m)
    expect(dry.stderr).toContain("dry run: nothing deleted")
    expect(await keysIn(db)).toHaveLength(4)

    const run = await runCli(env, ["prune", "--older-than", "180d"])
    expect(run.code).toBe(0)
    expect(run.stderr).toMatch(/^hookgate prune: database .*hookgate\.db \(SQLite\)/m)
    expect(run.stdout).toMatch(/^\s+deleted$/m)
    expect(run.stdout).toMatch(/orders\s+2$/m)
    expect(run.stdout).toMatch(/receipts\s+2$/m)
    expect(await keysIn(db)).toEqual(["test:old-pending", "test:recent"])

    const again = await runCli(env, ["prune", "--older-than", "180d"])
    expect(again.stdout).toMatch(/orders\s+0$/m)
  }, 60_000)

  it("refuses a cutoff that is not a duration, one under 30 days, and a missing --older-than, in one line each", async () => {
    const env = baseEnv(tempDir())
    for (const [args, message] of [
      [["prune", "--older-than", "half a year"], "is not a duration (e.g. 180d)"],
      [["prune", "--older-than", "7d"], "under 30d"]
    ] as const) {
      const { code, stderr, stdout } = await runCli(env, args)
      expect(code).not.toBe(0)
      expect(stdout + stderr).toContain(message)
      expect(stdout + stderr).not.toMatch(/at .*\.js:\d+/) // no stack trace
    }
    const missing = await runCli(env, ["prune"])
    expect(missing.code).not.toBe(0)
    expect(missing.stdout + missing.stderr).toContain("--older-than")
  }, 60_000)
})

