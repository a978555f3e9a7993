import { Command } from "@effect/cli"
import { HashMap, HashSet } from "effect"
import { describe, expect, it } from "vitest"
import { COMMANDS, helpRequest } from "../src/cli/help.js"
import { alertsCommand } from "../src/cli/alerts.js"
import { campaignsCommand } from "../src/cli/campaigns.js"
import { configCommand } from "../src/cli/config-check.js"
import { hookgateCommand as hookgate } from "../src/cli/main.js"
import { ordersCommand } from "../src/cli/orders.js"

/** The commands that only group others; a new group missing here shows as a command the help lacks. */
const GROUPS: Record<string, Command.Command<any, any, any, any>> = {
  orders: ordersCommand,
  alerts: alertsCommand,
  campaigns: campaignsCommand,
  config: configCommand
}

const names = (command: Command.Command<any, any, any, any>) => Array.from(HashMap.keys(Command.getSubcommands(command)))

/** Every runnable command path the parser knows: `orders list`, `serve`, … */
const parsedPaths = () =>
  names(hookgate).flatMap((name) => GROUPS[name] === undefined ? [name] : names(GROUPS[name]!).map((sub) => `${name} ${sub}`))

describe("the help written for a reader", () => {
  it("names every command the parser runs, and no other", () => {
    expect([...COMMANDS.map((c) => c.path)].sort()).toEqual([...parsedPaths()].sort())
    expect(HashSet.has(Command.getNames(hookgate), "hookgate")).toBe(true)
  })

  it("has a page for each of them, in 80 columns", () => {
    for (const { path } of COMMANDS) {
      const page = helpRequest([...path.split(" "), "--help"])!
      expect(page).toContain(`Usage: hookgate ${path}`)
      expect(page).toContain("--config <path>")
      expect(page.split("\n").filter((l) => l.length > 80)).toEqual([])
    }
  })
})
