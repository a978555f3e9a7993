import { PgStore } from "@hookgate/store-pg"
import type { SqlStoreServices } from "@hookgate/store-sql"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Duration, type Layer, Option } from "effect"
import type { GatewayConfig } from "./config/gateway-config.js"

/**
 * The store the settings select: Postgres when HOOKGATE_DATABASE_URL is set (its settings
 * read, and its URL checked, by `PgStore.PgStoreConfig`), otherwise the SQLite file HOOKGATE_DB.
 */
export const storeLayer = (config: GatewayConfig): Layer.Layer<SqlStoreServices, unknown> =>
  Option.match(config.postgres, {
    onNone: () => SqliteStore.layer({ filename: config.db, busyTimeoutMs: Duration.toMillis(config.dbBusyTimeout) }),
    onSome: PgStore.layer
  })

/** The database for banners and `describeGateway`: never the URL's password. */
export const describeDatabase = (config: GatewayConfig): string =>
  Option.match(config.postgres, {
    onNone: () => `${config.db} (SQLite)`,
    onSome: ({ url }) => `${PgStore.describeTarget(url)} (Postgres)`
  })
