import { Console } from "effect"
import type { GatewayConfig } from "../config/gateway-config.js"
import { describeMailer } from "../gateway-layer.js"
import { describeDatabase } from "../store-layer.js"

/** What a command acts on, as its first line: the database and the mailer (stderr, so stdout stays data). */
export const targetLine = (config: GatewayConfig, command: string) =>
  `hookgate ${command}: database ${describeDatabase(config)}, mailer ${describeMailer(config)}`

export const announce = (config: GatewayConfig, command: string) => Console.error(targetLine(config, command))
