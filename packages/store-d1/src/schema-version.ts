import { SqlStore } from "@hookgate/store-sql"
import * as Effect from "effect/Effect"
import type { D1Database } from "./database.js"
import { D1MigrationError } from "./errors.js"

/** The newest of the recorded file names (`0004_alert_retries.sql`), by their number; names not so formed are not hookgate's. */
export const newestRecorded = (names: Iterable<string>): { readonly id: number; readonly name: string } | undefined => {
  let newest: { id: number; name: string } | undefined
  for (const recorded of names) {
    const match = /^(\d+)_(.+?)(?:\.sql)?$/.exec(recorded)
    if (match === null) continue
    const id = Number(match[1])
    if (newest === undefined || id > newest.id) newest = { id, name: match[2]! }
  }
  return newest
}

/** The file names recorded in `table`; none when wrangler has not created it yet. */
export const recordedMigrations = (db: D1Database, table: string) =>
  Effect.tryPromise({
    try: () => db.prepare(`SELECT name FROM ${table} ORDER BY id`).all<{ name: string }>(),
    catch: (cause) => cause
  }).pipe(
    Effect.map((result): ReadonlyArray<string> => result.results.map((row) => row.name)),
    Effect.catchAll((cause) =>
      /no such table/i.test(String((cause as Error | undefined)?.message ?? cause))
        ? Effect.succeed([])
        : Effect.fail(new D1MigrationError({ migration: table, cause }))
    )
  )

/**
 * Refuses a D1 database whose recorded migrations go past the newest this release ships
 * (`SchemaTooNew`): a newer hookgate applied them with wrangler. One read.
 */
export const checkSchemaVersion = (db: D1Database, table: string) =>
  Effect.flatMap(recordedMigrations(db, table), (names) => SqlStore.refuseNewer(newestRecorded(names)))
