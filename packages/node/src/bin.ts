import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { cli } from "./cli/main.js"

// SIGINT and SIGTERM interrupt the main fiber: the server stops accepting, in-flight
// requests get the grace period, the sweeper stops, the database closes.
cli(process.argv).pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain({ disableErrorReporting: false }))
