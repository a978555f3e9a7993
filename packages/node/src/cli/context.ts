import type { OrderStore } from "@hookgate/core"
import type { AlertStore } from "@hookgate/core/alerts"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Duration, Effect } from "effect"
import { GatewayConfig } from "../config.js"

/** Runs an effect against the configured database alone (no providers, no mailer). */
export const withStore = <A, E>(effect: Effect.Effect<A, E, OrderStore | AlertStore>) =>
  Effect.flatMap(GatewayConfig, (config) =>
    effect.pipe(Effect.provide(SqliteStore.layer({ filename: config.db, busyTimeoutMs: Duration.toMillis(config.dbBusyTimeout) }))))
