import * as SqlClient from "@effect/sql/SqlClient"
import { receive, RetryPolicy } from "@hookgate/core"
import { Mailer, SendReceipt } from "@hookgate/core/mail"
import { Providers, type WebhookRequest } from "@hookgate/core/providers"
import { layerTestRenderer, makeTestProvider, paidEvent, RecordingAlerter, signTestRequest, TEST_SECRET } from "@hookgate/core/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import Database from "better-sqlite3"
import { Duration, Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlStore } from "@hookgate/store-sql"
import { type BenchSuite, countingTracer, figure } from "../lib.js"

/**
 * Issue 2's figures: statements per delivered order (counted from the spans
 * `@effect/sql` opens per statement), and orders per second through `receive`
 * on a SQLite file beside the same SQL and HMAC done directly.
 */

const ORDERS = 3000
const CONCURRENCY = 16


// Answers at once, as a bounded mailer (like Resend's, with its request timeout) declares.
export const instantMailer = Layer.succeed(Mailer, {
  name: "instant",
  honoursIdempotencyKeys: true,
  callTimeout: Duration.seconds(10),
  send: () => Effect.succeed(new SendReceipt({ mailer: "instant", messageId: "m", acceptedAt: 0 }))
})

const gatewayLayer = (filename: string) =>
  Layer.mergeAll(
    SqliteStore.layer({ filename }),
    instantMailer,
    RecordingAlerter.layer(),
    Providers.layer(makeTestProvider({ secret: TEST_SECRET })),
    layerTestRenderer,
    RetryPolicy.layer()
  )

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

const hookgateRate = async (requests: ReadonlyArray<WebhookRequest>, tracing: boolean) => {
  const runtime = ManagedRuntime.make(Layer.merge(gatewayLayer(tempDb("hookgate.db")), Layer.setTracerEnabled(tracing)))
  await runtime.runPromise(Effect.void)
  // As a server would: up to CONCURRENCY webhooks in flight, so the Web Crypto
  // round trips of one overlap the SQL of another (the SQL itself is synchronous).
  const queue = [...requests]
  const start = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (let request = queue.shift(); request; request = queue.shift()) {
      const outcome = await runtime.runPromise(receive("test", request))
      if (outcome._tag !== "Sent") throw new Error(`expected Sent, got ${outcome._tag}`)
    }
  }))
  const rate = requests.length / ((performance.now() - start) / 1000)
  await runtime.dispose()
  return rate
}

/**
 * The same work without Effect: the HMAC, JSON and hash, then the same two SQL
 * statements with better-sqlite3. `verify` is node:crypto's synchronous HMAC
 * (the issue's baseline) or Web Crypto's (what hookgate must use, to run on
 * Workers too), so the table shows how much of the gap Web Crypto alone explains.
 */
const baselineRate = async (requests: ReadonlyArray<WebhookRequest>, hmac: "node:crypto" | "webcrypto") => {
  const db = new Database(tempDb(`baseline-${hmac}.db`))
  db.pragma("journal_mode = WAL")
  db.pragma("busy_timeout = 5000")
  for (const statement of SqlStore.migrations.flatMap((m) => m.statements)) db.exec(statement)
  const insert = db.prepare(`INSERT INTO hookgate_orders (
  order_key, provider, event_id, event_type, email, product, amount, currency, metadata, payload_hash,
  status, attempts, next_attempt_at, lease_token, lease_expires_at, uncertain,
  duplicates_prevented, possible_duplicates, leases_lost, created_at, updated_at
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, 0, 0, 0, 0, ?, ?)
ON CONFLICT (order_key) DO NOTHING RETURNING order_key`)
  const complete = db.prepare(`UPDATE hookgate_orders SET status = 'sent', message_id = ?, sent_at = ?, updated_at = ?,
  lease_token = NULL, lease_expires_at = NULL, last_error = NULL, possible_duplicates = possible_duplicates + 0
WHERE order_key = ? AND lease_token = ? RETURNING 0 AS possible_duplicate`)
  const secret = Redacted.value(TEST_SECRET)
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
  const mac = async (body: Uint8Array): Promise<Uint8Array> =>
    hmac === "node:crypto"
      ? createHmac("sha256", secret).update(body).digest()
      : new Uint8Array(await crypto.subtle.sign("HMAC", key, body as Uint8Array<ArrayBuffer>))
  const one = async (request: WebhookRequest) => {
    const given = Buffer.from(request.headers["x-test-signature"]!, "hex")
    if (!timingSafeEqual(given, await mac(request.body))) throw new Error("bad signature")
    const event = JSON.parse(Buffer.from(request.body).toString("utf8"))
    const data = event.data
    const hash = createHash("sha256").update(JSON.stringify([data.email.toLowerCase(), data.product, data.amount, data.currency])).digest("hex")
    const now = Date.now()
    const token = crypto.randomUUID()
    const row = insert.get(`test:${data.orderId}`, "test", event.id, event.type, data.email, data.product, data.amount,
      data.currency, "{}", hash, now, token, now + 300_000, now, now)
    if (!row) throw new Error("not inserted")
    complete.get("m", now, now, `test:${data.orderId}`, token)
  }
  const start = performance.now()
  if (hmac === "node:crypto") {
    for (const request of requests) await one(request)
  } else {
    const queue = [...requests]
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      for (let request = queue.shift(); request; request = queue.shift()) await one(request)
    }))
  }
  const rate = requests.length / ((performance.now() - start) / 1000)
  db.close()
  return rate
}

export const pipelineSuite: BenchSuite = {
  name: "pipeline",
  run: async () => {
    const { ours, theirs } = await statementsPerOrder()
    const requests = await signedRequests("r", ORDERS)
    const baseline = await baselineRate(requests, "node:crypto")
    const webCryptoBaseline = await baselineRate(requests, "webcrypto")
    const rate = await hookgateRate(requests, true)
    const untraced = await hookgateRate(await signedRequests("u", ORDERS), false)
    return [
      figure("statementsPerOrder", "statements per delivered order (hookgate)", ours, "statements"),
      figure("insertClaimMarkStatementsPerOrder", "statements per order (insert, claim, mark)", theirs, "statements"),
      figure("ordersPerSecond", `orders/s through receive, SQLite file (${ORDERS} orders, ${CONCURRENCY} in flight)`, rate, "orders/s"),
      figure("ordersPerSecondTracingOff", "orders/s through receive, spans disabled (Layer.setTracerEnabled(false))", untraced, "orders/s"),
      figure("baselineOrdersPerSecond", "orders/s, same SQL + HMAC with better-sqlite3, node:crypto", baseline, "orders/s"),
      figure("baselineWebCryptoOrdersPerSecond", "orders/s, the same baseline with Web Crypto's HMAC", webCryptoBaseline, "orders/s")
    ]
  },
  ratios: [
    ["ordersPerSecond / baselineOrdersPerSecond (target 0.5)", "ordersPerSecond", "baselineOrdersPerSecond"],
    ["ordersPerSecond / baselineWebCryptoOrdersPerSecond", "ordersPerSecond", "baselineWebCryptoOrdersPerSecond"]
  ]
}
