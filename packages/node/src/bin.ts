import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { settingsProvider, SettingsSource, takeConfigFlag } from "./config/source.js"
import { layerLogger } from "./logging.js"
import { cli } from "./cli/main.js"
import { withColourPolicy } from "./cli/plain-console.js"
import { reportFailure } from "./cli/report-failure.js"

// `--config PATH` (or HOOKGATE_CONFIG) adds a settings file under the environment, for every command.
const { args, file } = takeConfigFlag(process.argv)

const program = Effect.gen(function*() {
  const provider = yield* settingsProvider({ file })
  yield* cli(args).pipe(Effect.provide(layerLogger), Effect.withConfigProvider(provider))
})

// SIGINT and SIGTERM interrupt the main fiber: the server stops accepting, in-flight
// requests get the grace period, the sweeper stops, the database closes.
program.pipe(
  reportFailure,
  withColourPolicy,
  Effect.provideService(SettingsSource, { file }),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
