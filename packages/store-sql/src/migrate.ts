import * as Effect from "effect/Effect"
import { runMigrations } from "./migrations/index.js"
import { checkSchemaVersion } from "./schema-version.js"

/**
 * Runs pending migrations, then refuses to go on (`SchemaTooNew`) when the database
 * records a migration newer than this release ships: the Migrator alone would skip it
 * and start on a schema it does not know. Answers the migrations it ran.
 */
export const migrate = Effect.tap(runMigrations, () => checkSchemaVersion)
