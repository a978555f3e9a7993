import { startResendTestServer } from "@hookgate/mailer-resend/testing"
import { startPaddleTestServer } from "@hookgate/provider-paddle/testing"
import { startStripeEventsServer } from "@hookgate/provider-stripe/testing"
import { LogLevel, Miniflare } from "miniflare"
import type { Readable } from "node:stream"
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from "wrangler"
import { bundleWorker, wranglerConfig } from "./bundle.js"
import { CapturingLog } from "./emails.js"
import { CREEM_SECRET, LEMONSQUEEZY_SECRET, PADDLE_SECRET, type SignedWebhook, STRIPE_SECRET } from "./webhooks.js"

export const RESEND_API_KEY = "re_example_worker_key"
/** The Resend copy's STRIPE_API_KEY: it reconciles on its cron through Stripe's List Events (the stand-in). */
export const STRIPE_API_KEY = "rk_test_example_worker_events_read"
export const ADMIN_TOKEN = "example-worker-admin-token"

/** The two configurations the tests run, side by side in one Miniflare, each with its own D1. */
export type Mailer = "cloudflare" | "resend"

/** Options of `startExample`. */
export interface ExampleOptions {
  /** The `HOOKGATE_ADMIN_TOKEN` secret (default `ADMIN_TOKEN`). */
  readonly adminToken?: string
  /** Seconds a queue waits for a fuller batch, instead of wrangler.jsonc's `max_batch_timeout`. */
  readonly maxBatchTimeout?: number
}

/** The queue options wrangler derives from wrangler.jsonc (records by binding and by queue name). */
interface QueueOptions {
  readonly queueProducers?: Record<string, { readonly queueName: string }>
  readonly queueConsumers?: Record<string, object>
}

/**
 * The queues of wrangler.jsonc for one copy. A queue has one consumer, so the
 * `send_email` copy consumes them; the Resend copy's producers go to queues of its own
 * that nothing consumes (its tests start no campaign).
 */
const queuesOf = (name: Mailer, options: object, maxBatchTimeout: number | undefined): QueueOptions => {
  const { queueConsumers = {}, queueProducers = {} } = options as QueueOptions
  if (name === "resend") {
    return {
      queueProducers: Object.fromEntries(Object.entries(queueProducers).map(([binding, producer]) =>
        [binding, { ...producer, queueName: `${producer.queueName}-${name}` }])),
      queueConsumers: {}
    }
  }
  return {
    queueProducers,
    queueConsumers: Object.fromEntries(Object.entries(queueConsumers).map(([queue, consumer]) =>
      [queue, maxBatchTimeout === undefined ? consumer : { ...consumer, maxBatchTimeout }]))
  }
}

/**
 * The example Worker, bundled by wrangler, running in Miniflare (workerd) with
 * the bindings wrangler.jsonc declares: real D1, the real `send_email` binding,
 * vars and (test) secrets. Two copies run: one sending through the binding
 * (MAILER=cloudflare) and one through Resend (MAILER=resend), whose outbound
 * requests to api.resend.com Miniflare hands to a local Resend test server.
 */
export const startExample = async (options: ExampleOptions = {}) => {
  const bundle = await bundleWorker()
  const config = unstable_readConfig({ config: wranglerConfig })
  const { workerOptions } = unstable_getMiniflareWorkerOptions(wranglerConfig)
  const resend = await startResendTestServer({ apiKey: RESEND_API_KEY })
  // Paddle's customer API, for the Resend copy's Paddle webhooks (the other copy has no outbound network).
  const paddle = await startPaddleTestServer()
  const stripe = await startStripeEventsServer({ apiKey: STRIPE_API_KEY })
  const log = new CapturingLog(LogLevel.INFO)
  const secrets = {
    STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
    CREEM_WEBHOOK_SECRET: CREEM_SECRET,
    LEMONSQUEEZY_WEBHOOK_SECRET: LEMONSQUEEZY_SECRET,
    PADDLE_WEBHOOK_SECRET: PADDLE_SECRET,
    PADDLE_API_KEY: paddle.apiKey,
    HOOKGATE_ADMIN_TOKEN: options.adminToken ?? ADMIN_TOKEN
  }
  const worker = (name: Mailer, vars: Record<string, string>) => ({
    ...workerOptions,
    ...queuesOf(name, workerOptions, options.maxBatchTimeout),
    name,
    // The bundle wrangler wrote, as its one module (listed, not scanned: Miniflare's scan
    // refuses the cloudflare:email mailer's run-time `import()`, which workerd resolves).
    modules: [{ type: "ESModule" as const, path: "index.js", contents: bundle.contents }],
    modulesRules: undefined,
    bindings: { ...workerOptions.bindings, ...secrets, ...vars },
    d1Databases: { DB: `hookgate-${name}` }
  })
  // What the Worker itself prints (its JSON log lines), kept rather than echoed.
  const workerOutput: Array<string> = []
  const mf = new Miniflare({
    log,
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      for (const stream of [stdout, stderr]) stream.on("data", (chunk: Buffer) => workerOutput.push(chunk.toString("utf8")))
    },
    workers: [
      worker("cloudflare", { MAILER: "cloudflare" }),
      {
        ...worker("resend", { MAILER: "resend", RESEND_API_KEY, STRIPE_API_KEY }),
        // Miniflare's outbound fetch: api.resend.com, api.paddle.com and api.stripe.com go to the local stand-ins.
        outboundService: async (request: Request) => {
          const url = new URL(request.url)
          const hosts: Record<string, string> = { "api.resend.com": resend.url, "api.paddle.com": paddle.url, "api.stripe.com": stripe.url }
          const local = hosts[url.hostname]
          if (local === undefined) return new Response("no network in tests", { status: 502 })
          return fetch(new URL(url.pathname + url.search, local), {
            method: request.method,
            headers: request.headers,
            body: request.method === "GET" ? null : await request.arrayBuffer()
          })
        }
      }
    ]
  })
  await mf.ready
  const workers = { cloudflare: await mf.getWorker("cloudflare"), resend: await mf.getWorker("resend") }
  const databases = {
    cloudflare: await mf.getD1Database("DB", "cloudflare"),
    resend: await mf.getD1Database("DB", "resend")
  }
  const cron = config.triggers.crons[0] ?? "*/10 * * * *"

  return {
    bundle,
    cron,
    resend,
    paddle,
    /** Stripe's List Events, as the Resend copy's cron reads it. */
    stripe,
    log,
    /** The Worker's log lines so far (JSON, one per line). */
    workerLogs: () => workerOutput.join("").split("\n").filter((line) => line.trim() !== ""),
    db: (mailer: Mailer) => databases[mailer],
    /** Posts a signed webhook to the Worker and answers its status and JSON body. */
    post: async (mailer: Mailer, webhook: SignedWebhook) => {
      const response = await workers[mailer].fetch(`https://shop.example${webhook.path}`, {
        method: "POST",
        headers: webhook.headers,
        body: webhook.body
      })
      return { status: response.status, body: (await response.json()) as Record<string, unknown> }
    },
    /** The copy's `fetch`, as a client reaches it (any URL: the Worker reads only its path). */
    fetch: (mailer: Mailer, url: string, init: RequestInit = {}) => workers[mailer].fetch(url, init as never),
    get: async (mailer: Mailer, path: string, headers: Record<string, string> = {}) => {
      const response = await workers[mailer].fetch(`https://shop.example${path}`, { headers })
      return { status: response.status, body: (await response.json()) as Record<string, unknown> }
    },
    /** Fires the cron trigger of wrangler.jsonc once. */
    scheduled: (mailer: Mailer) => workers[mailer].scheduled({ cron, scheduledTime: new Date() }),
    /** The order's row in D1. */
    order: async (mailer: Mailer, key: string) =>
      databases[mailer].prepare("SELECT * FROM hookgate_orders WHERE order_key = ?").bind(key).first<Record<string, unknown>>(),
    /** Makes a failed order due now, as if its backoff had elapsed. */
    makeDue: (mailer: Mailer, key: string) =>
      databases[mailer].prepare("UPDATE hookgate_orders SET next_attempt_at = 0 WHERE order_key = ?").bind(key).run(),
    /** Empties hookgate's tables (the schema and d1_migrations stay), the Resend server and the log. */
    reset: async () => {
      for (const db of Object.values(databases)) {
        await db.batch(["hookgate_orders", "hookgate_receipts", "hookgate_alerts", "hookgate_reconcile_cursors", "hookgate_attempts", "hookgate_runs"].map((t) => db.prepare(`DELETE FROM ${t}`)))
      }
      resend.reset()
      stripe.clear()
      log.clear()
      workerOutput.length = 0
    },
    dispose: async () => {
      await mf.dispose()
      await resend.close()
      await paddle.close()
      await stripe.close()
    }
  }
}
export type Example = Awaited<ReturnType<typeof startExample>>

/** Polls until `check` holds (up to about five seconds). */
export const eventually = async <A>(read: () => Promise<A>, check: (a: A) => boolean): Promise<A> => {
  for (let i = 0; i < 250; i++) {
    const value = await read()
    if (check(value)) return value
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error("condition never held")
}
