import * as SqlClient from "@effect/sql/SqlClient"
import { receive, RetryPolicy } from "@hookgate/core"
import { Mailer, SendReceipt } from "@hookgate/core/mail"
import { NodeHmac } from "@hookgate/core/node"
import { Providers, type WebhookRequest } from "@hookgate/core/providers"
import { paidEvent, RecordingAlerter, signTestRequest, TEST_SECRET, TestProvider, TestRenderer } from "@hookgate/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import Database from "better-sqlite3"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Clock, Duration, Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlStore } from "@hookgate/store-sql"
import { type BenchSuite, countingTracer, figure, median } from "../lib.js"

/**
 * Issues 2 and 16: statements per delivered order (counted from the spans
 * `@effect/sql` opens per statement), and orders per second through `receive`
 * on a SQLite file beside Effect's own floor (the same work as a minimal Effect
 * program) and the same SQL and HMAC done directly. Run alone with
 * `node bench/dist/run.js pipeline` (`BENCH_ROUNDS` sets the rounds, default 5).
 */

const ORDERS = 2000
const CONCURRENCY = 16
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)

// Answers at once, as a bounded mailer (like Resend's, with its request timeout) declares.
export const instantMailer = Layer.succeed(Mailer, {
  name: "instant",
  honoursIdempotencyKeys: true,
  callTimeout: Duration.seconds(10),
  send: () => Effect.succeed(new SendReceipt({ mailer: "instant", messageId: "m", acceptedAt: 0 }))
})

// As on the Node gateway: the provider's keys and the fulfilment hash on node:crypto.
const gatewayLayer = (filename: string) =>
  Layer.mergeAll(
    SqliteStore.layer({ filename }),
    instantMailer,
    RecordingAlerter.layer(),
    Providers.layer(TestProvider.make({ secret: TEST_SECRET })),
    TestRenderer.layer,
    RetryPolicy.layer()
  ).pipe(Layer.provideMerge(NodeHmac.layer()))

export const signedRequests = (prefix: string, count: number) =>
  Effect.runPromise(Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) =>
    signTestRequest(TEST_SECRET, paidEvent(`evt_${prefix}${i}`, {
      orderId: `${prefix}${i}`,
      email: `buyer${i}@example.com`,
      product: "course-101",
      amount: 1900,
      currency: "usd"
    }))))

const tempDb = (name: string) => join(mkdtempSync(join(tmpdir(), "hookgate-bench-")), name)

const statementsPerOrder = async () => {
  const { count, layer: tracer } = countingTracer()
  const runtime = ManagedRuntime.make(Layer.merge(gatewayLayer(":memory:"), tracer))
  const requests = await signedRequests("s", 100)
  await runtime.runPromise(Effect.void)
  const before = count()
  for (const request of requests) {
    const outcome = await runtime.runPromise(receive("test", request))
    if (outcome._tag !== "Sent") throw new Error(`expected Sent, got ${outcome._tag}`)
  }
  const ours = (count() - before) / requests.length

  // The common pattern on the same client and tracer: insert, then claim, then mark.
  const pattern = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE pattern (id TEXT PRIMARY KEY, status TEXT, token TEXT)`
    const start = count()
    for (let i = 0; i < 100; i++) {
      yield* sql`INSERT INTO pattern (id, status) VALUES (${`p${i}`}, 'pending') ON CONFLICT DO NOTHING`
      yield* sql`UPDATE pattern SET token = 't' WHERE id = ${`p${i}`} AND token IS NULL RETURNING id`
      yield* sql`UPDATE pattern SET status = 'sent' WHERE id = ${`p${i}`} AND token = 't'`
    }
    return (count() - start) / 100
  })
  const theirs = await runtime.runPromise(pattern)
  await runtime.dispose()
  return { ours, theirs }
}

export const hookgateRate = async (requests: ReadonlyArray<WebhookRequest>, tracing: boolean) => {
  const runtime = ManagedRuntime.make(Layer.merge(gatewayLayer(tempDb("hookgate.db")), Layer.setTracerEnabled(tracing)))
  await runtime.runPromise(Effect.void)
  const rate = await inFlight(requests, async (request) => {
    const outcome = await runtime.runPromise(receive("test", request))
    if (outcome._tag !== "Sent") throw new Error(`expected Sent, got ${outcome._tag}`)
  })
  await runtime.dispose()
  return rate
}

/**
 * Orders per second with up to CONCURRENCY in flight, as a server would run them
 * (so an asynchronous HMAC of one overlaps the SQL of another; the SQL itself is synchronous).
 */
const inFlight = async (requests: ReadonlyArray<WebhookRequest>, one: (request: WebhookRequest) => Promise<void>) => {
  const queue = [...requests]
  const start = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (let request = queue.shift(); request; request = queue.shift()) await one(request)
  }))
  return requests.length / ((performance.now() - start) / 1000)
}

// The two statements of a delivered order, as the SQL store writes them.
const INSERT_LEASED = `INSERT INTO hookgate_orders (
  order_key, provider, event_id, event_type, email, product, amount, currency, metadata, payload_hash,
  status, attempts, next_attempt_at, lease_token, lease_expires_at, uncertain,
  duplicates_prevented, possible_duplicates, leases_lost, created_at, updated_at
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, 0, 0, 0, 0, ?, ?)
ON CONFLICT (order_key) DO NOTHING RETURNING order_key`
const COMPLETE = `UPDATE hookgate_orders SET status = 'sent', message_id = ?, sent_at = ?, updated_at = ?,
  lease_token = NULL, lease_expires_at = NULL, last_error = NULL, possible_duplicates = possible_duplicates + 0
WHERE order_key = ? AND lease_token = ? RETURNING 0 AS possible_duplicate`

/** The per-order work every path shares: the HMAC check (node:crypto), the JSON parse, the fulfilment hash. */
export const verifyAndParse = (request: WebhookRequest, secret: string) => {
  const given = Buffer.from(request.headers["x-test-signature"]!, "hex")
  if (!timingSafeEqual(given, createHmac("sha256", secret).update(request.body).digest())) throw new Error("bad signature")
  const event = JSON.parse(Buffer.from(request.body).toString("utf8"))
  const data = event.data
  const hash = createHash("sha256").update(JSON.stringify([data.email.toLowerCase(), data.product, data.amount, data.currency])).digest("hex")
  return { event, data, hash }
}

/**
 * The same work without Effect: the HMAC, JSON and hash, then the same two SQL
 * statements with better-sqlite3. `verify` is node:crypto's synchronous HMAC
 * (the issue's baseline) or Web Crypto's (what hookgate's providers use where
 * no node:crypto HMAC is chosen), so the table shows how much of the gap Web Crypto alone explains.
 */
export const baselineRate = async (requests: ReadonlyArray<WebhookRequest>, hmac: "node:crypto" | "webcrypto") => {
  const db = new Database(tempDb(`baseline-${hmac}.db`))
  db.pragma("journal_mode = WAL")
  db.pragma("busy_timeout = 5000")
  for (const statement of SqlStore.migrations.flatMap((m) => m.statements)) db.exec(statement)
  const insert = db.prepare(INSERT_LEASED)
  const complete = db.prepare(COMPLETE)
  const secret = Redacted.value(TEST_SECRET)
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
  const store = (event: { id: string; type: string }, data: Record<string, any>, hash: string) => {
    const now = Date.now()
    const token = crypto.randomUUID()
    const row = insert.get(`test:${data.orderId}`, "test", event.id, event.type, data.email, data.product, data.amount,
      data.currency, "{}", hash, now, token, now + 300_000, now, now)
    if (!row) throw new Error("not inserted")
    complete.get("m", now, now, `test:${data.orderId}`, token)
  }
  const viaWebCrypto = async (request: WebhookRequest) => {
    const given = Buffer.from(request.headers["x-test-signature"]!, "hex")
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, request.body as Uint8Array<ArrayBuffer>))
    if (!timingSafeEqual(given, mac)) throw new Error("bad signature")
    const event = JSON.parse(Buffer.from(request.body).toString("utf8"))
    const data = event.data
    store(event, data, createHash("sha256").update(JSON.stringify([data.email.toLowerCase(), data.product, data.amount, data.currency])).digest("hex"))
  }
  let rate: number
  if (hmac === "node:crypto") {
    const start = performance.now()
    for (const request of requests) {
      const { data, event, hash } = verifyAndParse(request, secret)
      store(event, data, hash)
    }
    rate = requests.length / ((performance.now() - start) / 1000)
  } else {
    rate = await inFlight(requests, viaWebCrypto)
  }
  db.close()
  return rate
}

/**
 * Effect's own floor: a minimal Effect program doing the same per-order work
 * (node:crypto HMAC, JSON parse, hash) and the same two statements through
 * `@effect/sql` templates on `@effect/sql-sqlite-node` (WAL, the same schema),
 * with no spans of its own, run as `receive` is: one `runPromise` per order,
 * CONCURRENCY in flight.
 */
export const effectFloorRate = async (requests: ReadonlyArray<WebhookRequest>) => {
  const filename = tempDb("floor.db")
  const runtime = ManagedRuntime.make(SqliteClient.layer({ filename }))
  const secret = Redacted.value(TEST_SECRET)
  await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(SqlStore.migrations.flatMap((m) => m.statements), (statement) => sql.unsafe(statement), { discard: true })))
  const order = (request: WebhookRequest) =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { data, event, hash } = verifyAndParse(request, secret)
      const now = yield* Clock.currentTimeMillis
      const token = crypto.randomUUID()
      const key = `test:${data.orderId}`
      const inserted = yield* sql`INSERT INTO hookgate_orders (
  order_key, provider, event_id, event_type, email, product, amount, currency, metadata, payload_hash,
  status, attempts, next_attempt_at, lease_token, lease_expires_at, uncertain,
  duplicates_prevented, possible_duplicates, leases_lost, created_at, updated_at
) VALUES (
  ${key}, ${"test"}, ${event.id}, ${event.type}, ${data.email}, ${data.product}, ${data.amount},
  ${data.currency}, ${"{}"}, ${hash}, 'pending', 0, ${now}, ${token}, ${now + 300_000}, 0, 0, 0, 0, ${now}, ${now}
) ON CONFLICT (order_key) DO NOTHING RETURNING order_key`
      if (inserted.length === 0) return yield* Effect.dieMessage("not inserted")
      yield* sql`UPDATE hookgate_orders SET status = 'sent', message_id = ${"m"}, sent_at = ${now}, updated_at = ${now},
  lease_token = NULL, lease_expires_at = NULL, last_error = NULL, possible_duplicates = possible_duplicates + ${sql`0`}
WHERE order_key = ${key} AND lease_token = ${token} RETURNING ${sql`0`} AS possible_duplicate`
    })
  const rate = await inFlight(requests, (request) => runtime.runPromise(order(request)))
  await runtime.dispose()
  return rate
}

/** Every rate in every round, interleaved (so the machine's load falls on all alike); the medians. */
const interleaved = async <K extends string>(rounds: number, rates: Record<K, () => Promise<number>>) => {
  const seen = {} as Record<K, Array<number>>
  for (let round = 0; round < rounds; round++) {
    for (const [key, rate] of Object.entries(rates) as Array<[K, () => Promise<number>]>) {
      ;(seen[key] ??= []).push(await rate())
    }
  }
  return Object.fromEntries(Object.entries(seen).map(([key, values]) => [key, median(values as Array<number>)])) as Record<K, number>
}

export const pipelineSuite: BenchSuite = {
  name: "pipeline",
  run: async () => {
    const { ours, theirs } = await statementsPerOrder()
    // Each path writes a fresh database file, so one set of requests serves every round.
    const requests = await signedRequests("r", ORDERS)
    const rates = await interleaved(ROUNDS, {
      baseline: () => baselineRate(requests, "node:crypto"),
      webCryptoBaseline: () => baselineRate(requests, "webcrypto"),
      floor: () => effectFloorRate(requests),
      hookgate: () => hookgateRate(requests, true),
      untraced: () => hookgateRate(requests, false)
    })
    const per = `${ORDERS} orders, ${CONCURRENCY} in flight, median of ${ROUNDS} interleaved rounds`
    return [
      figure("statementsPerOrder", "statements per delivered order (hookgate)", ours, "statements"),
      figure("insertClaimMarkStatementsPerOrder", "statements per order (insert, claim, mark)", theirs, "statements"),
      figure("ordersPerSecond", `orders/s through receive, SQLite file (${per})`, rates.hookgate, "orders/s"),
      figure("ordersPerSecondTracingOff", "orders/s through receive, spans disabled (Layer.setTracerEnabled(false))", rates.untraced, "orders/s"),
      figure("effectFloorOrdersPerSecond", "orders/s, minimal Effect + @effect/sql templates, node:crypto, no spans", rates.floor, "orders/s"),
      figure("baselineOrdersPerSecond", "orders/s, same SQL + HMAC with better-sqlite3, node:crypto", rates.baseline, "orders/s"),
      figure("baselineWebCryptoOrdersPerSecond", "orders/s, the same baseline with Web Crypto's HMAC", rates.webCryptoBaseline, "orders/s")
    ]
  },
  ratios: [
    ["ordersPerSecond / effectFloorOrdersPerSecond (target 0.8)", "ordersPerSecond", "effectFloorOrdersPerSecond"],
    ["ordersPerSecond / baselineOrdersPerSecond (target 0.35)", "ordersPerSecond", "baselineOrdersPerSecond"],
    ["effectFloorOrdersPerSecond / baselineOrdersPerSecond", "effectFloorOrdersPerSecond", "baselineOrdersPerSecond"],
    ["ordersPerSecond / baselineWebCryptoOrdersPerSecond", "ordersPerSecond", "baselineWebCryptoOrdersPerSecond"]
  ]
}
