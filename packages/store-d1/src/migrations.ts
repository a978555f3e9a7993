import { SqlStore } from "@hookgate/store-sql"

/** The table `wrangler d1 migrations apply` records applied files in (its default name). */
export const D1_MIGRATIONS_TABLE = "d1_migrations"

/** One migration as a wrangler `.sql` file. */
export interface D1Migration {
  /** The file name wrangler records, e.g. `0001_init.sql`. */
  readonly name: string
  readonly statements: ReadonlyArray<string>
}

/** store-sql's migrations, named as wrangler names migration files (`<4-digit id>_<name>.sql`), in order. */
export const d1Migrations: ReadonlyArray<D1Migration> = SqlStore.migrations.map((migration) => ({
  name: `${String(migration.id).padStart(4, "0")}_${migration.name}.sql`,
  statements: SqlStore.sqliteStatements(migration)
}))

/**
 * The text of a migration file in `migrations/`. The files are generated from
 * store-sql's statements and a test checks they still agree
 * (`HOOKGATE_WRITE_MIGRATIONS=1 npx vitest run packages/store-d1` rewrites them).
 */
export const renderMigrationFile = (migration: D1Migration): string =>
  [
    `-- ${migration.name}: generated from @hookgate/store-sql's migrations; do not edit by hand.`,
    `-- Applied by \`wrangler d1 migrations apply\` or by @hookgate/store-d1's applyMigrations;`,
    `-- both record it in ${D1_MIGRATIONS_TABLE}.`,
    "",
    migration.statements.map((statement) => `${statement.trim()};`).join("\n\n"),
    ""
  ].join("\n")
