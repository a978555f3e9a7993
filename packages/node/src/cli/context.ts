import type { OrderStore } from "@hookgate/core"
import type { AlertStore } from "@hookgate/core/alerts"
import { Effect } from "effect"
import { GatewayConfig } from "../config.js"
import { storeLayer } from "../store-layer.js"

/** Runs an effect against the configured database alone (no providers, no mailer). */
export const withStore = <A, E>(effect: Effect.Effect<A, E, OrderStore | AlertStore>) =>
  Effect.flatMap(GatewayConfig, (config) =>
    effect.pipe(Effect.provide(storeLayer(config))))
