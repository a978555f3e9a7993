import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import type { BaselineServerOptions } from "./http-baseline-server.js"
import { effectFloorServer } from "./http-effect-floor-server.js"

/**
 * The HTTP suite's Effect floor in a process of its own, as the gateway runs in one:
 * `node http-effect-floor-child.js '<options JSON>'` prints `listening <url>` once it
 * listens on a free loopback port, and closes (database included) on SIGTERM.
 */

const options = JSON.parse(process.argv[2]!) as BaselineServerOptions
Layer.launch(effectFloorServer(options, (url) => process.stdout.write(`listening ${url}\n`))).pipe(
  NodeRuntime.runMain({ disableErrorReporting: false })
)
