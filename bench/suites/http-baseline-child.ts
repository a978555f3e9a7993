import type { AddressInfo } from "node:net"
import { baselineServer, type BaselineServerOptions } from "./http-baseline-server.js"

/**
 * The HTTP suite's baseline in a process of its own, as the gateway runs in one:
 * `node http-baseline-child.js '<options JSON>'` prints `listening <url>` once it
 * listens on a free loopback port, and closes (database included) on SIGTERM.
 */

const options = JSON.parse(process.argv[2]!) as BaselineServerOptions
const server = baselineServer(options)
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo
  process.stdout.write(`listening http://127.0.0.1:${port}\n`)
})
process.once("SIGTERM", () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
})
