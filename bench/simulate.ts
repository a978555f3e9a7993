import { writeFile } from "node:fs/promises"
import { availableParallelism } from "node:os"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import type { CampaignTally } from "./simulation/campaign.js"
import { defaultRates, type FaultRates } from "./simulation/faults.js"
import type { Job } from "./simulation/jobs.js"
import { runInWorkers } from "./simulation/parallel.js"
import type { QueueTally } from "./simulation/queue.js"
import { disposeStores, isRealIo, type StoreKind, storeKinds } from "./simulation/stores.js"
import type { OrderTally } from "./simulation/tally.js"

/**
 * `npm run simulate`: the seeded fault simulation. Orders through the real
 * pipeline, queue messages through `Consumer.handler`/`Consumer.once`, and
 * campaigns, on the memory store and SQLite (and, when asked, on D1 over
 * Miniflare and on Postgres), with a key-honouring mailer and one that ignores
 * keys; one table, written to bench/simulation.json.
 *
 * Options: --orders N (default 100,000), --million (1,000,000 orders), --seed S (1),
 * --messages N (queue messages; default a tenth of the orders), --recipients N
 * (campaign recipients; default as many as orders), --store memory|sqlite|d1|pg, a comma
 * list of them, or all (default memory,sqlite; d1 starts a Miniflare (workerd) with a fresh
 * D1 database per shard, up to 5 shards at once; pg a throwaway PostgreSQL server, initdb'd
 * as an unprivileged user under root, with a fresh database per shard, one shard at a time:
 * Debian's postgresql package or HOOKGATE_PG_BIN. Their worlds wait on real I/O, see
 * simulation/real-io.ts), --workers N (threads; default the machine's cores: the table does
 * not depend on it; d1 and pg run on one thread, beside their servers),
 * --shard N (orders per shard, default 2,000), --out FILE (default bench/simulation.json),
 * and a rate per fault (--transient, --rate-limited, --rejected, --accepted-then-unknown,
 * --slow, --marker-fails, --store-unavailable, --crash, --skew-ms, --never-delivered: an order's
 * webhook never arrives). With --never-delivered above 0 each order row runs twice: without
 * reconciliation, and with it every --reconcile-every (default 1 hour), the lost orders of each.
 */

const defaultOutput = fileURLToPath(new URL("../simulation.json", import.meta.url))
const rateFlags: Record<string, keyof FaultRates> = {
  "transient": "transient",
  "rate-limited": "rateLimited",
  "rejected": "rejected",
  "accepted-then-unknown": "acceptedThenUnknown",
  "slow": "slow",
  "marker-fails": "markerFails",
  "store-unavailable": "storeUnavailable",
  "crash": "crash",
  "skew-ms": "skewMs",
  "never-delivered": "neverDelivered"
}

const { values } = parseArgs({
  options: {
    orders: { type: "string" },
    million: { type: "boolean" },
    seed: { type: "string" },
    messages: { type: "string" },
    recipients: { type: "string" },
    store: { type: "string" },
    workers: { type: "string" },
    shard: { type: "string" },
    out: { type: "string" },
    "reconcile-every": { type: "string" },
    ...Object.fromEntries(Object.keys(rateFlags).map((flag) => [flag, { type: "string" as const }]))
  }
})
const numberOf = (value: unknown, fallback: number) => (typeof value === "string" ? Number(value) : fallback)
const orders = values.million === true ? 1_000_000 : numberOf(values.orders, 100_000)
const seed = numberOf(values.seed, 1)
const messages = numberOf(values.messages, Math.ceil(orders / 10))
const recipients = numberOf(values.recipients, orders)
const workers = numberOf(values.workers, availableParallelism())
const rates: FaultRates = Object.fromEntries(
  Object.entries(rateFlags).map(([flag, key]) => [key, numberOf((values as Record<string, unknown>)[flag], defaultRates[key])])
) as unknown as FaultRates
const stores: ReadonlyArray<StoreKind> = typeof values.store !== "string"
  ? ["memory", "sqlite"]
  : values.store === "all"
  ? storeKinds
  : values.store.split(",").map((name) => {
    if (!storeKinds.includes(name as StoreKind)) throw new Error(`--store ${name}: one of ${storeKinds.join(", ")}, a comma list, or all`)
    return name as StoreKind
  })
const mailers = [{ honoursKeys: true, name: "honours keys (24 h)" }, { honoursKeys: false, name: "ignores keys" }] as const

const timed = async <A>(job: Job) => {
  const started = Date.now()
  const tally = (await runInWorkers(job, isRealIo(job.config.store) ? 1 : workers)) as A
  return { tally, seconds: (Date.now() - started) / 1000 }
}

const orderColumns = ["orders", "accepted", "lost", "duplicates", "flagged", "cappedUncertain", "unflagged", "capped", "failed", "alerts"] as const

const main = async () => {
  const command = `npm run simulate -- ${process.argv.slice(2).join(" ")}`.trim()
  const oneThread = stores.some(isRealIo) ? ` (${stores.filter(isRealIo).join(" and ")} on 1)` : ""
  console.log(`${command}: seed ${seed}, ${orders} orders, ${messages} queue messages, ${recipients} campaign recipients, ${workers} workers${oneThread}`)
  const rows: Array<{ store: StoreKind; mailer: string; reconcile?: string; seconds: number } & OrderTally> = []
  const queue: Array<{ store: StoreKind; mailer: string; seconds: number } & QueueTally> = []
  const campaigns: Array<{ store: StoreKind; seconds: number } & CampaignTally> = []
  // Reconciliation matters only when webhooks go missing: then each row runs without it and with it.
  const reconcileModes: ReadonlyArray<string | undefined> = rates.neverDelivered > 0
    ? [undefined, typeof values["reconcile-every"] === "string" ? values["reconcile-every"] : "1 hour"]
    : [undefined]
  for (const store of stores) {
    for (const mailer of mailers) for (const reconcileEvery of reconcileModes) {
      const { seconds, tally } = await timed<OrderTally>({
        kind: "orders",
        config: {
          seed,
          orders,
          store,
          honoursKeys: mailer.honoursKeys,
          rates,
          ...(values.shard ? { shard: Number(values.shard) } : {}),
          ...(reconcileEvery === undefined ? {} : { reconcileEvery })
        }
      })
      const reconcile = reconcileEvery === undefined ? "off" : `every ${reconcileEvery}`
      rows.push({ store, mailer: mailer.name, ...(rates.neverDelivered > 0 ? { reconcile } : {}), seconds, ...tally })
      console.log(
        `orders   ${store.padEnd(6)} ${mailer.name.padEnd(20)} ${rates.neverDelivered > 0 ? `reconcile ${reconcile.padEnd(14)} ` : ""}` + orderColumns.map((c) => `${c} ${tally[c]}`).join("  ") +
          `  dup/1e6 ${tally.duplicatesPerMillion.toFixed(0)} (orders with a duplicate ≤ ${tally.duplicateOrdersUpper95PerMillion.toFixed(0)}/1e6, 95%)` +
          `  defects ${tally.faults.defects}  ${seconds.toFixed(1)} s`
      )
    }
  }
  for (const store of stores) {
    for (const mailer of mailers) {
      const { seconds, tally } = await timed<QueueTally>({
        kind: "queue",
        config: { seed, messages, store, honoursKeys: mailer.honoursKeys, rates }
      })
      queue.push({ store, mailer: mailer.name, seconds, ...tally })
      console.log(`queue    ${store.padEnd(6)} ${mailer.name.padEnd(20)} ${JSON.stringify(tally)}  ${seconds.toFixed(1)} s`)
    }
  }
  for (const store of stores) {
    const { seconds, tally } = await timed<CampaignTally>({ kind: "campaign", config: { seed, recipients, store, rates } })
    campaigns.push({ store, seconds, ...tally })
    console.log(`campaign ${store.padEnd(6)} ${JSON.stringify(tally)}  ${seconds.toFixed(1)} s`)
  }
  const output = typeof values.out === "string" ? values.out : defaultOutput
  await disposeStores()
  const threads = stores.every(isRealIo) ? 1 : workers
  await writeFile(output, JSON.stringify({ command, seed, orders, messages, recipients, workers: threads, rates, rows, queue, campaigns }, null, 2) + "\n")
  console.log(`wrote ${output}`)
}

main().catch(async (error) => {
  console.error(error)
  await disposeStores().catch(() => undefined)
  process.exit(1)
})
