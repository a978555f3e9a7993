// One process of the Postgres scaling bench (run by postgres.ts). Signs `count` orders for each
// of `rounds` rounds, connects, runs a warm-up of its own orders, prints "ready"; then, for each
// line on stdin, runs one round's orders CONCURRENCY at a time and prints one JSON line: through
// hookgate's `receive` on PgStore as the Node gateway runs it (node:crypto's HMAC, no tracer)
// ("hookgate"), or as the same HMAC, hash and two statements with `pg` alone ("direct"), with
// the round trips per order: the Sync and simple Query messages `pg` sent (each waits for the
// server's answer).
import { receive, RetryPolicy } from "@hookgate/core"
import { NodeHmac } from "@hookgate/core/node"
import { Providers, type WebhookRequest } from "@hookgate/core/providers"
import { RecordingAlerter, TEST_SECRET, TestProvider, TestRenderer } from "@hookgate/testing"
import { PgStore } from "@hookgate/store-pg"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { createInterface } from "node:readline"
import Pg from "pg"
import { instantMailer, signedRequests, verifyAndParse } from "./pipeline.js"

const [mode, url, prefix, countArg, roundsArg] = process.argv.slice(2) as [string, string, string, string, string]
const CONCURRENCY = 16
const POOL = 10
const WARMUP = 1000

// Round trips: every extended-protocol exchange ends with Sync, a simple query is one Query message.
let roundTrips = 0
for (const method of ["sync", "query"] as const) {
  const original = Pg.Connection.prototype[method] as (...args: Array<unknown>) => unknown
  Pg.Connection.prototype[method] = function(this: Pg.Connection, ...args: Array<unknown>) {
    roundTrips++
    return original.apply(this, args)
  } as never
}

const inFlight = async (requests: ReadonlyArray<WebhookRequest>, one: (request: WebhookRequest) => Promise<void>) => {
  const queue = [...requests]
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (let request = queue.shift(); request; request = queue.shift()) await one(request)
  }))
}

const hookgate = async () => {
  const runtime = ManagedRuntime.make(Layer.mergeAll(
    PgStore.layer({ url: Redacted.make(url), maxConnections: POOL }),
    instantMailer,
    RecordingAlerter.layer(),
    Providers.layer(TestProvider.make({ secret: TEST_SECRET })),
    TestRenderer.layer,
    RetryPolicy.layer()
  ).pipe(Layer.provideMerge(NodeHmac.layer())))
  await runtime.runPromise(Effect.void)
  return {
    run: (requests: ReadonlyArray<WebhookRequest>) =>
      inFlight(requests, async (request) => {
        const outcome = await runtime.runPromise(receive("test", request))
        if (outcome._tag !== "Sent") throw new Error(`expected Sent, got ${outcome._tag}`)
      }),
    close: () => runtime.dispose()
  }
}

const direct = async () => {
  const pool = new Pg.Pool({ connectionString: url, max: POOL })
  await pool.query("SELECT 1")
  const secret = Redacted.value(TEST_SECRET)
  const one = async (request: WebhookRequest) => {
    const { data, event, hash } = verifyAndParse(request, secret)
    const now = Date.now()
    const token = crypto.randomUUID()
    const inserted = await pool.query(`INSERT INTO hookgate_orders (
  order_key, provider, event_id, event_type, email, product, amount, currency, metadata, payload_hash,
  status, attempts, next_attempt_at, lease_token, lease_expires_at, uncertain,
  duplicates_prevented, possible_duplicates, leases_lost, created_at, updated_at
) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', 0, $11, $12, $13, 0, 0, 0, 0, $11, $11)
ON CONFLICT (order_key) DO NOTHING RETURNING order_key`, [`test:${data.orderId}`, "test", event.id, event.type, data.email, data.product,
      data.amount, data.currency, "{}", hash, now, token, now + 300_000])
    if (inserted.rowCount !== 1) throw new Error("not inserted")
    await pool.query(`UPDATE hookgate_orders SET status = 'sent', message_id = $1, sent_at = $2, updated_at = $2,
  lease_token = NULL, lease_expires_at = NULL, last_error = NULL, possible_duplicates = possible_duplicates + 0
WHERE order_key = $3 AND lease_token = $4 RETURNING 0 AS possible_duplicate`, ["m", now, `test:${data.orderId}`, token])
  }
  return { run: (requests: ReadonlyArray<WebhookRequest>) => inFlight(requests, one), close: () => pool.end() }
}

const main = async () => {
  const count = Number(countArg)
  const rounds = await Promise.all(Array.from({ length: Number(roundsArg) }, (_, round) => signedRequests(`${prefix}r${round}-`, count)))
  const runner = mode === "hookgate" ? await hookgate() : await direct()
  // Both sides warm up first (connections opened, code compiled), as a gateway that has run a while.
  await runner.run(await signedRequests(`${prefix}warm-`, WARMUP))
  process.stdout.write("ready\n")
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
  for (const requests of rounds) {
    // stdin closed: the bench stopped early.
    if ((await lines.next()).done) break
    const before = roundTrips
    const start = performance.now()
    await runner.run(requests)
    const ms = performance.now() - start
    process.stdout.write(`${JSON.stringify({ orders: requests.length, ms, roundTripsPerOrder: (roundTrips - before) / requests.length })}\n`)
  }
  await runner.close()
  process.exit(0)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
