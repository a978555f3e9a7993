import { Command, Options } from "@effect/cli"
import { EpochMillis, parseDuration } from "@hookgate/core"
import { Console, Duration, Effect, Option } from "effect"
import { MIN_RETENTION, prune } from "../prune.js"
import { withStore } from "./context.js"
import { table } from "./print.js"
import { OperatorRefusal } from "./refusal.js"

const olderThan = Options.text("older-than").pipe(
  Options.withDescription("delete what finished longer ago than this (180d, 26w, …; at least 30d)")
)
const dryRun = Options.boolean("dry-run").pipe(Options.withDescription("count what would be deleted; delete nothing"))

/** `hookgate prune --older-than 180d [--dry-run]`: the store kept at a bounded size, for years. */
export const pruneCommand = Command.make("prune", { olderThan, dryRun }, ({ dryRun, olderThan }) =>
  Effect.gen(function*() {
    const age = parseDuration(olderThan)
    if (Option.isNone(age)) {
      return yield* new OperatorRefusal({ message: `--older-than ${JSON.stringify(olderThan)} is not a duration (e.g. 180d)` })
    }
    if (Duration.lessThan(age.value, MIN_RETENTION)) {
      return yield* new OperatorRefusal({
        message: `--older-than ${olderThan} is under 30d: a provider's late retry of a pruned order's event would send its email again`
      })
    }
    return yield* withStore(dryRun ? "prune --dry-run" : "prune")(Effect.gen(function*() {
      const before = (yield* EpochMillis.now) - Duration.toMillis(age.value)
      const report = yield* prune(before, { dryRun })
      yield* Console.log(table(["", dryRun ? "would delete" : "deleted"], [
        ["orders", String(report.orders)],
        ["receipts", String(report.receipts)],
        ["alerts (resolved)", String(report.alerts)],
        ["attempts (history)", String(report.attempts)],
        ["queue message keys", String(report.messages)]
      ]))
      yield* Console.error(
        `${dryRun ? "dry run: nothing deleted; " : ""}kept: pending orders, orders with an open alert, ` +
          `open alerts, and everything from after ${new Date(before).toISOString()}`
      )
    }))
  })).pipe(Command.withDescription("delete finished orders, their receipts and resolved alerts older than a cutoff"))
