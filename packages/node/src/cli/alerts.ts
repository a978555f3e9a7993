import { Command } from "@effect/cli"
import { AlertStore } from "@hookgate/core/alerts"
import { Effect } from "effect"
import { withStore } from "./context.js"
import { countOption } from "./count-option.js"
import { printAlerts } from "./print.js"

const list = Command.make("list", { limit: countOption("limit", { min: 1, fallback: 50, description: "at most this many alerts (default 50)" }) }, ({ limit }) =>
  withStore("alerts list")(Effect.flatMap(AlertStore, (store) => store.list({ limit }))).pipe(Effect.flatMap(printAlerts))
).pipe(Command.withDescription("list stored alerts, newest first, with their delivery outcome"))

export const alertsCommand = Command.make("alerts").pipe(
  Command.withDescription("alerts raised for the owner"),
  Command.withSubcommands([list])
)
