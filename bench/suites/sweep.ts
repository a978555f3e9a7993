import { OrderStore, RetryPolicy, sweep, type SweepReport } from "@hookgate/core"
import { Mailer, SendReceipt } from "@hookgate/core/mail"
import { newOrder, RecordingAlerter, TestRenderer } from "@hookgate/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Duration, Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type BenchSuite, figure } from "../lib.js"

/**
 * Issue 12's recovery figure: after an outage, how fast one sweep run drains a
 * backlog of due orders through a mailer that answers in MAILER_MS (a hosted
 * API's round trip), beside what the previous sweep allowed (one page of 100
 * per run, a run every 10 minutes).
 */

const BACKLOG = 10_000
const MAILER_MS = 20

const slowMailer = Layer.succeed(Mailer, {
  name: "bench-remote",
  honoursIdempotencyKeys: true,
  callTimeout: Duration.seconds(10),
  send: () =>
    Effect.as(Effect.sleep(Duration.millis(MAILER_MS)), new SendReceipt({ mailer: "bench-remote", messageId: "m", acceptedAt: 0 }))
})

/** BACKLOG orders whose senders stored and leased them, then died: all due once their leases expire. */
const seedBacklog = Effect.gen(function*() {
  const store = yield* OrderStore
  yield* Effect.forEach(Array.from({ length: BACKLOG }, (_, i) => i), (i) =>
    Effect.flatMap(newOrder(`b${i}`), (order) => store.put(order, { token: crypto.randomUUID(), now: 0, until: 1 })), { discard: true })
})

export const sweepSuite: BenchSuite = {
  name: "sweep",
  run: async () => {
    const filename = join(mkdtempSync(join(tmpdir(), "hookgate-bench-")), "sweep.db")
    const runtime = ManagedRuntime.make(Layer.mergeAll(
      SqliteStore.layer({ filename }),
      slowMailer,
      RecordingAlerter.layer(),
      TestRenderer.layer,
      RetryPolicy.layer()
    ))
    await runtime.runPromise(seedBacklog)
    const start = performance.now()
    const report: SweepReport = await runtime.runPromise(sweep({ budget: "30 minutes" }))
    const minutes = (performance.now() - start) / 60_000
    await runtime.dispose()
    if (report.sent !== BACKLOG) throw new Error(`expected ${BACKLOG} sent, got ${JSON.stringify(report)}`)
    return [
      figure("sweepRecoveryOrdersPerMinute", `due orders recovered per minute by one sweep run (${BACKLOG.toLocaleString("en")}, mailer ${MAILER_MS} ms)`, BACKLOG / minutes, "orders/min"),
      figure("sweepRecoveryMinutes", `minutes to recover the ${BACKLOG.toLocaleString("en")}-order backlog`, minutes, "min"),
      figure("previousSweepOrdersPerMinute", "the previous sweep: one page of 100 per run, a run every 10 minutes", 100 / 10, "orders/min")
    ]
  },
  ratios: [["sweepRecoveryOrdersPerMinute / previousSweepOrdersPerMinute", "sweepRecoveryOrdersPerMinute", "previousSweepOrdersPerMinute"]]
}
