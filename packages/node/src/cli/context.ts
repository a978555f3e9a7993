import type { OrderStore } from "@hookgate/core"
import type { AlertStore } from "@hookgate/core/alerts"
import type { MessageLedger } from "@hookgate/core/queue"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Duration, Effect, Option } from "effect"
import { GatewayConfig } from "../config/gateway-config.js"
import { storeLayer } from "../store-layer.js"
import { announce } from "./target.js"

/**
 * Runs an effect against the configured database alone (no providers, no mailer), after naming
 * what it acts on. On SQLite a failure whose cause is a lock held elsewhere, a damaged page or a
 * file that is not a database is named (the store names those met at start; this, those met later).
 */
export const withStore = (command: string) => <A, E>(effect: Effect.Effect<A, E, OrderStore | AlertStore | MessageLedger>) =>
  Effect.flatMap(GatewayConfig, (config) => {
    const explain = Option.isNone(config.postgres)
      ? SqliteStore.explainSqliteFailure(config.db, { waitedMs: Duration.toMillis(config.dbBusyTimeout) })
      : () => undefined
    return announce(config, command).pipe(
      Effect.zipRight(effect),
      Effect.provide(storeLayer(config)),
      Effect.mapError((error) => explain(error) ?? error)
    )
  })
