import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as init from "./0001_init.js"
import * as queuesCampaigns from "./0002_queues_campaigns.js"
import * as receiptDetail from "./0003_receipt_detail.js"
import * as alertRetries from "./0004_alert_retries.js"
import * as wholeMillis from "./0005_whole_millis.js"
import * as reconcile from "./0006_reconcile.js"
import * as protocolColumns from "./0007_protocol_columns.js"
import * as consoleReads from "./0008_console.js"
import * as history from "./0009_history.js"
import * as campaignSealed from "./0010_campaign_sealed.js"
import * as reconcileRuns from "./0011_reconcile_runs.js"
import * as attemptNotes from "./0012_attempt_notes.js"
import * as campaignDraftToken from "./0013_campaign_draft_token.js"

/** One migration: `statements` for every database, then `sqlite` for SQLite and D1 alone (a trigger, say). */
export interface Migration {
  readonly id: number
  readonly name: string
  readonly statements: ReadonlyArray<string>
  readonly sqlite?: ReadonlyArray<string>
}

/** Every migration, in order. D1 gets the same statements as `.sql` files (store-d1 checks they agree). */
export const migrations: ReadonlyArray<Migration> = [
  { id: 1, name: "init", statements: init.statements },
  { id: 2, name: "queues_campaigns", statements: queuesCampaigns.statements },
  { id: 3, name: "receipt_detail", statements: receiptDetail.statements },
  { id: 4, name: "alert_retries", statements: alertRetries.statements },
  { id: 5, name: "whole_millis", statements: wholeMillis.statements },
  { id: 6, name: "reconcile", statements: reconcile.statements },
  { id: 7, name: "protocol_columns", statements: protocolColumns.statements },
  { id: 8, name: "console", statements: consoleReads.statements },
  { id: 9, name: "history", statements: history.statements },
  { id: 10, name: "campaign_sealed", statements: campaignSealed.statements },
  { id: 11, name: "reconcile_runs", statements: reconcileRuns.statements },
  { id: 12, name: "attempt_notes", statements: attemptNotes.statements, sqlite: attemptNotes.sqlite },
  { id: 13, name: "campaign_draft_token", statements: campaignDraftToken.statements }
]

/** A migration's statements on SQLite and D1 (Postgres runs `statements` alone). */
export const sqliteStatements = (migration: Migration): ReadonlyArray<string> => [
  ...migration.statements,
  ...(migration.sqlite ?? [])
]

/** Where `migrate` records the migrations it applied. */
export const MIGRATIONS_TABLE = "hookgate_migrations"

/** The migrations as `@effect/sql` Migrator entries (`<id>_<name>`). */
export const loader: Migrator.Loader = Migrator.fromRecord(
  Object.fromEntries(
    migrations.map((m) => [
      `${m.id}_${m.name}`,
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.forEach(
          sql.onDialectOrElse({ pg: () => m.statements, orElse: () => sqliteStatements(m) }),
          (s) => sql.unsafe(s),
          { discard: true }
        ))
    ])
  )
)

/**
 * Runs pending migrations with `@effect/sql`'s Migrator (SQLite, Postgres; not D1, which has no
 * transactions). The Migrator skips recorded migrations above its own, so this only runs them;
 * `SqlStore.migrate` also refuses a schema newer than this release knows.
 */
export const runMigrations = Migrator.make({})({ loader, table: MIGRATIONS_TABLE })
