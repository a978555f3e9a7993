import { PgStore } from "@hookgate/store-pg"
import type { SqlStoreServices } from "@hookgate/store-sql"
import { SqliteStore } from "@hookgate/store-sqlite"
import { ConfigError, Duration, Layer, Option, Redacted } from "effect"
import type { GatewayConfig } from "./config/gateway-config.js"

const isPostgresUrl = (url: Redacted.Redacted<string>) => /^postgres(ql)?:\/\//i.test(Redacted.value(url))

/**
 * The store the settings select: Postgres when HOOKGATE_DATABASE_URL is a
 * `postgres://` URL (HOOKGATE_DB_POOL_SIZE, HOOKGATE_DB_STATEMENT_TIMEOUT,
 * HOOKGATE_DB_CONNECT_TIMEOUT), otherwise the SQLite file HOOKGATE_DB.
 */
export const storeLayer = (config: GatewayConfig): Layer.Layer<SqlStoreServices, unknown> =>
  Option.match(config.databaseUrl, {
    onNone: () => SqliteStore.layer({ filename: config.db, busyTimeoutMs: Duration.toMillis(config.dbBusyTimeout) }),
    onSome: (url) =>
      isPostgresUrl(url)
        ? PgStore.layer({
          url,
          maxConnections: config.dbPoolSize,
          statementTimeout: config.dbStatementTimeout,
          connectTimeout: config.dbConnectTimeout
        })
        : Layer.fail(ConfigError.InvalidData(["HOOKGATE_DATABASE_URL"], "must be a postgres:// URL (unset it to use SQLite)"))
  })

/** The database for banners and `describeGateway`: never the URL's password. */
export const describeDatabase = (config: GatewayConfig): string =>
  Option.match(config.databaseUrl, {
    onNone: () => `${config.db} (SQLite)`,
    onSome: (url) => `${PgStore.describeTarget(url)} (Postgres)`
  })
