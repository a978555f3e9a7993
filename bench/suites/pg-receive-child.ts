// One process of the Postgres scaling bench (run by postgres.ts). Signs `count` orders,
// connects, prints "ready", waits for a line on stdin, then runs them CONCURRENCY at a
// time: through hookgate's `receive` on PgStore ("hookgate"), or as the same HMAC and the
// same two statements with `pg` alone ("direct"). Prints one JSON line.
import { receive, RetryPolicy } from "@hookgate/core"
import { Providers, type WebhookRequest } from "@hookgate/core/providers"
import { RecordingAlerter, TEST_SECRET, TestProvider, TestRenderer } from "@hookgate/testing"
import { PgStore } from "@hookgate/store-pg"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { once } from "node:events"
import { createHash } from "node:crypto"
import Pg from "pg"
import { countingTracer } from "../lib.js"
import { instantMailer, signedRequests } from "./pipeline.js"

const [mode, url, prefix, countArg] = process.argv.slice(2) as [string, string, string, string]
const CONCURRENCY = 16
const POOL = 10

const inFlight = async (requests: ReadonlyArray<WebhookRequest>, one: (request: WebhookRequest) => Promise<void>) => {
  const queue = [...requests]
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (let request = queue.shift(); request; request = queue.shift()) await one(request)
  }))
}

const hookgate = async () => {
  const { count, layer: tracer } = countingTracer()
  const runtime = ManagedRuntime.make(Layer.mergeAll(
    PgStore.layer({ url: Redacted.make(url), maxConnections: POOL }),
    instantMailer,
    RecordingAlerter.layer(),
    Providers.layer(TestProvider.make({ secret: TEST_SECRET })),
    TestRenderer.layer,
    RetryPolicy.layer(),
    tracer
  ))
  await runtime.runPromise(Effect.void)
  return {
    run: (requests: ReadonlyArray<WebhookRequest>) =>
      inFlight(requests, async (request) => {
        const outcome = await runtime.runPromise(receive("test", request))
        if (outcome._tag !== "Sent") throw new Error(`expected Sent, got ${outcome._tag}`)
      }),
    statements: count,
    close: () => runtime.dispose()
  }
}

const direct = async () => {
  const pool = new Pg.Pool({ connectionString: url, max: POOL })
  await pool.query("SELECT 1")
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(Redacted.value(TEST_SECRET)), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
  let statements = 0
  const one = async (request: WebhookRequest) => {
    const mac = Buffer.from(await crypto.subtle.sign("HMAC", key, request.body as Uint8Array<ArrayBuffer>)).toString("hex")
    if (mac !== request.headers["x-test-signature"]) throw new Error("bad signature")
    const event = JSON.parse(Buffer.from(request.body).toString("utf8"))
    const data = event.data
    const hash = createHash("sha256").update(JSON.stringify([data.email.toLowerCase(), data.product, data.amount, data.currency])).digest("hex")
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
    statements += 2
  }
  return { run: (requests: ReadonlyArray<WebhookRequest>) => inFlight(requests, one), statements: () => statements, close: () => pool.end() }
}

const main = async () => {
  const requests = await signedRequests(prefix, Number(countArg))
  const runner = mode === "hookgate" ? await hookgate() : await direct()
  process.stdout.write("ready\n")
  await once(process.stdin, "data")
  const before = runner.statements()
  const start = performance.now()
  await runner.run(requests)
  const ms = performance.now() - start
  const statementsPerOrder = (runner.statements() - before) / requests.length
  await runner.close()
  process.stdout.write(`${JSON.stringify({ orders: requests.length, ms, statementsPerOrder })}\n`)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
