import { Command } from "@effect/cli"
import { alertsCommand } from "./alerts.js"
import { campaignsCommand } from "./campaigns.js"
import { configCommand } from "./config-check.js"
import { demoCommand } from "./demo.js"
import { ordersCommand } from "./orders.js"
import { pruneCommand } from "./prune.js"
import { reconcileCommand } from "./reconcile.js"
import { VERSION } from "./help.js"
import { sendTestCommand } from "./send-test.js"
import { serveCommand } from "./serve.js"
import { statsCommand } from "./stats.js"
import { sweepCommand } from "./sweep.js"

export const hookgateCommand = Command.make("hookgate").pipe(
  Command.withDescription("payment webhooks into emails that go out once"),
  Command.withSubcommands([
    serveCommand,
    sweepCommand,
    reconcileCommand,
    statsCommand,
    pruneCommand,
    ordersCommand,
    alertsCommand,
    campaignsCommand,
    sendTestCommand,
    configCommand,
    demoCommand
  ])
)

export const cli = Command.run(hookgateCommand, { name: "hookgate", version: VERSION })
