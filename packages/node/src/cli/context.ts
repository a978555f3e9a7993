import { OrderStore } from "@hookgate/core"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Duration, Effect } from "effect"
import { GatewayConfig } from "../config/gateway-config.js"
import { announce } from "./target.js"

/** Runs an effect against the configured database alone (no providers, no mailer), after naming what it acts on. */
export const withStore = (command: string) => <A, E>(effect: Effect.Effect<A, E, OrderStore>) =>
  Effect.flatMap(GatewayConfig, (config) =>
    announce(config, command).pipe(
      Effect.zipRight(effect),
      Effect.provide(SqliteStore.layer({ filename: config.db, busyTimeoutMs: Duration.toMillis(config.dbBusyTimeout) }))
    ))
