import { Command } from "@effect/cli"
import { sweep } from "@hookgate/core"
import { Effect } from "effect"
import { GatewayConfig } from "../config.js"
import { deliveryLayer } from "../gateway-layer.js"
import { printReport } from "./print.js"

export const sweepCommand = Command.make("sweep", {}, () =>
  Effect.flatMap(GatewayConfig, (config) =>
    sweep().pipe(Effect.flatMap(printReport), Effect.provide(deliveryLayer(config))))
).pipe(Command.withDescription("run one retry sweep now and print its report"))
