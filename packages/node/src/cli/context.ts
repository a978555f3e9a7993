import type { OrderStore } from "@hookgate/core"
import type { AlertStore } from "@hookgate/core/alerts"
import { Effect } from "effect"
import { GatewayConfig } from "../config/gateway-config.js"
import { storeLayer } from "../store-layer.js"
import { announce } from "./target.js"

/** Runs an effect against the configured database alone (no providers, no mailer), after naming what it acts on. */
export const withStore = (command: string) => <A, E>(effect: Effect.Effect<A, E, OrderStore | AlertStore>) =>
  Effect.flatMap(GatewayConfig, (config) =>
    announce(config, command).pipe(
      Effect.zipRight(effect),
      Effect.provide(storeLayer(config))
    ))
