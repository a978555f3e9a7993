import { D1Store } from "@hookgate/store-d1"
import { Effect } from "effect"
import { Miniflare } from "miniflare"
import { mkdtemp, readdir, readFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { unstable_readConfig } from "wrangler"
import { exampleDir, storeD1Migrations, wrangler, wranglerConfig } from "./support/bundle.js"

const config = unstable_readConfig({ config: wranglerConfig })
const database = config.d1_databases[0]!
const migrationsDir = join(exampleDir, database.migrations_dir ?? "migrations")

/** The example's D1 database as `wrangler --local --persist-to dir` keeps it, opened in Miniflare. */
const withPersistedDb = async <A>(dir: string, use: (db: D1Store.D1Database) => Promise<A>) => {
  const mf = new Miniflare({
    modules: true,
    script: "export default {}",
    d1Databases: { DB: database.database_id! },
    d1Persist: join(dir, "v3", "d1")
  })
  try {
    return await use((await mf.getD1Database("DB")) as unknown as D1Store.D1Database)
  } finally {
    await mf.dispose()
  }
}

describe("the example's D1 migrations", () => {
  it("are @hookgate/store-d1's files, unchanged", async () => {
    const files = (await readdir(migrationsDir)).filter((f) => f.endsWith(".sql")).sort()
    expect(files).toEqual(D1Store.d1Migrations.map((m) => m.name))
    for (const file of files) {
      expect(await readFile(join(migrationsDir, file), "utf8"), `${file}: copy it again from @hookgate/store-d1/migrations`)
        .toBe(await readFile(join(storeD1Migrations, file), "utf8"))
    }
  })

  it("wrangler d1 migrations apply and applyMigrations agree on what is applied, either way round", async () => {
    // wrangler first: applyMigrations finds nothing to do.
    const byWrangler = await mkdtemp(join(tmpdir(), "hookgate-d1-"))
    await wrangler(["d1", "migrations", "apply", database.database_name!, "--local", "--persist-to", byWrangler])
    await withPersistedDb(byWrangler, async (db) => {
      expect(await Effect.runPromise(D1Store.applyMigrations(db))).toEqual([])
      const tables = await db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'hookgate_%' AND type = 'table'").all()
      expect(tables.results.map((t) => t["name"])).toEqual(
        expect.arrayContaining(["hookgate_alerts", "hookgate_orders", "hookgate_receipts"])
      )
    })
    // applyMigrations first: wrangler finds nothing to do.
    const byHookgate = await mkdtemp(join(tmpdir(), "hookgate-d1-"))
    await withPersistedDb(byHookgate, async (db) => {
      expect(await Effect.runPromise(D1Store.applyMigrations(db))).toEqual(D1Store.d1Migrations.map((m) => m.name))
    })
    const { stdout } = await wrangler(["d1", "migrations", "apply", database.database_name!, "--local", "--persist-to", byHookgate])
    expect(stdout).toContain("No migrations to apply")
    // wrangler runs each migration file in a workerd of its own: seconds each on a busy machine.
  }, 300_000)

  it("wrangler.jsonc keeps secrets out: none of its vars is a secret", () => {
    expect(Object.keys(config.vars)).not.toContain("STRIPE_WEBHOOK_SECRET")
    for (const name of Object.keys(config.vars)) expect(name).not.toMatch(/SECRET|API_KEY|TOKEN/)
    expect(config.triggers.crons).toEqual(["*/10 * * * *"])
  })
})
