// Modules, not the index: the index also loads NodeClusterHttp, hence @effect/cluster and @effect/rpc.
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Console, Effect } from "effect"
import { settingsProvider, SettingsSource, takeConfigFlag, warnUnknownSettings } from "./config/source.js"
import { layerLogger } from "./logging.js"
import { helpRequest } from "./cli/help.js"
import { withColourPolicy } from "./cli/plain-console.js"
import { reportFailure } from "./cli/report-failure.js"

// `--config PATH` (or HOOKGATE_CONFIG) adds a settings file under the environment, for every command.
const { args, file } = takeConfigFlag(process.argv)

// `hookgate`, `hookgate help [command]`, `--help`/`-h`, `-v`/`--version`: our help, not the parser's.
const help = helpRequest(args.slice(2))

const program = help !== undefined ? Console.log(help) : Effect.gen(function*() {
  const provider = yield* settingsProvider({ file })
  yield* warnUnknownSettings({ file })
  // The commands (and the stores, mailers and server they import) load only when one runs:
  // help and the version answer without them.
  const { cli } = yield* Effect.promise(() => import("./cli/main.js"))
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
