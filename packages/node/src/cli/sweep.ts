import { Command, Options } from "@effect/cli"
import { sweep } from "@hookgate/core"
import { Config, Console, Effect, Option } from "effect"
import { GatewayConfig } from "../config/gateway-config.js"
import { layerDelivery, describeMailer } from "../gateway-layer.js"
import { gatewayUrl, sweepThroughGateway } from "./gateway-client.js"
import { printReport } from "./print.js"
import { announce } from "./target.js"

const local = Options.boolean("local").pipe(
  Options.withDescription("sweep in this process through this shell's mailer, instead of asking the running gateway")
)
const url = Options.text("url").pipe(
  Options.optional,
  Options.withDescription("the running gateway (default HOOKGATE_URL, else http://HOST:PORT)")
)

export const sweepCommand = Command.make("sweep", { local, url }, ({ local, url }) =>
  Effect.gen(function*() {
    const config = yield* GatewayConfig
    const explicitUrl = yield* Config.option(Config.string("HOOKGATE_URL"))
    yield* announce(config, "sweep")
    if (local) {
      yield* Console.error(`sweeping in this process: due orders are sent through ${describeMailer(config)}`)
      return yield* sweep().pipe(Effect.flatMap(printReport), Effect.provide(layerDelivery(config)))
    }
    const base = gatewayUrl(config, Option.orElse(url, () => explicitUrl))
    yield* Console.error(`asking the gateway at ${base} to sweep (it sends through the mailer it serves with)`)
    yield* printReport(yield* sweepThroughGateway(config, base))
  })).pipe(Command.withDescription("ask the running gateway to run one retry sweep now, and print its report"))
