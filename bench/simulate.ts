import { Effect } from "effect"
import { writeFile } from "node:fs/promises"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { defaultRates, type FaultRates } from "./simulation/faults.js"
import { type CampaignTally, simulateCampaign } from "./simulation/campaign.js"
import { simulateOrders } from "./simulation/orders.js"
import type { StoreKind } from "./simulation/stores.js"
import type { OrderTally } from "./simulation/tally.js"

/**
 * `npm run simulate`: the seeded fault simulation. Orders through the real
 * pipeline on the memory store and SQLite, with a key-honouring mailer and one
 * that ignores keys; one table, written to bench/simulation.json.
 * Options: --orders N (default 500: about 10 to 15 orders a second per table row on
 * a shared 2-core machine, the TestClock stepping every order through days of retries), --million, --seed S, --wave W, and a rate per fault
 * (--transient, --rate-limited, --rejected, --accepted-then-unknown, --slow,
 * --marker-fails, --store-unavailable, --crash, --skew-ms).
 */

const outputPath = fileURLToPath(new URL("../simulation.json", import.meta.url))
const rateFlags: Record<string, keyof FaultRates> = {
  "transient": "transient",
  "rate-limited": "rateLimited",
  "rejected": "rejected",
  "accepted-then-unknown": "acceptedThenUnknown",
  "slow": "slow",
  "marker-fails": "markerFails",
  "store-unavailable": "storeUnavailable",
  "crash": "crash",
  "skew-ms": "skewMs"
}

const { values } = parseArgs({
  options: {
    orders: { type: "string" },
    million: { type: "boolean" },
    seed: { type: "string" },
    wave: { type: "string" },
    store: { type: "string" },
    ...Object.fromEntries(Object.keys(rateFlags).map((flag) => [flag, { type: "string" as const }]))
  }
})
const numberOf = (value: unknown, fallback: number) => (typeof value === "string" ? Number(value) : fallback)
const orders = values.million === true ? 1_000_000 : numberOf(values.orders, 500)
const seed = numberOf(values.seed, 1)
const rates: FaultRates = Object.fromEntries(
  Object.entries(rateFlags).map(([flag, key]) => [key, numberOf((values as Record<string, unknown>)[flag], defaultRates[key])])
) as unknown as FaultRates
const stores: ReadonlyArray<StoreKind> = typeof values.store === "string" ? [values.store as StoreKind] : ["memory", "sqlite"]

const columns = ["orders", "accepted", "lost", "duplicates", "flagged", "cappedUncertain", "unflagged", "capped", "failed", "alerts"] as const

const main = async () => {
  const rows: Array<{ store: StoreKind; mailer: string; seconds: number } & OrderTally> = []
  for (const store of stores) {
    for (const honoursKeys of [true, false]) {
      const started = Date.now()
      const tally = await Effect.runPromise(simulateOrders({
        seed,
        orders,
        store,
        honoursKeys,
        rates,
        ...(typeof values.wave === "string" ? { shard: Number(values.wave) } : {})
      }))
      const mailer = honoursKeys ? "honours keys (24 h)" : "ignores keys"
      rows.push({ store, mailer, seconds: (Date.now() - started) / 1000, ...tally })
      console.log(
        `${store.padEnd(6)} ${mailer.padEnd(20)} ` + columns.map((c) => `${c} ${tally[c]}`).join("  ") +
          `  dup/1e6 ${tally.duplicatesPerMillion.toFixed(0)} (orders with a duplicate ≤ ${tally.duplicateOrdersUpper95PerMillion.toFixed(0)}/1e6, 95%)` +
          `  ${((Date.now() - started) / 1000).toFixed(1)} s`
      )
    }
  }
  const campaigns: Array<{ store: StoreKind } & CampaignTally> = []
  for (const store of stores) {
    const tally = await Effect.runPromise(simulateCampaign({ seed, recipients: orders * 10, store, rates }))
    campaigns.push({ store, ...tally })
    console.log(`${store.padEnd(6)} campaign ${JSON.stringify(tally)}`)
  }
  await writeFile(outputPath, JSON.stringify({ seed, orders, rates, rows, campaigns }, null, 2) + "\n")
  console.log(`wrote ${outputPath}`)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
