import { Command, Options } from "@effect/cli"
import { parseDuration, reconcile, type ReconcileReport } from "@hookgate/core"
import { Console, Effect, Option } from "effect"
import { GatewayConfig } from "../config/gateway-config.js"
import { describeMailer } from "../gateway-layer.js"
import * as Gateway from "../Gateway.js"
import { logReport, reconcilingProviders } from "../reconcile.js"
import { table } from "./print.js"
import { OperatorRefusal } from "./refusal.js"
import { announce } from "./target.js"

const since = Options.text("since").pipe(
  Options.optional,
  Options.withDescription("look back this far (72h, 30 minutes, …) instead of from each provider's cursor")
)
const dryRun = Options.boolean("dry-run").pipe(
  Options.withDescription("count what a run would store and send, storing and sending nothing")
)

const time = (ms: number | null) => (ms === null ? "-" : new Date(ms).toISOString())

/**
 * The summary: one row per provider (seen, already known, new, skipped as unpaid, and
 * for a detect-only provider the paid orders it cannot send and those this run named
 * to the owner), and the providers skipped.
 */
export const printReconcileReport = (report: ReconcileReport) =>
  Console.log([
    table(
      ["provider", "seen", "known", "new", "unpaid", "unfulfillable", "unsendable", "alerted", "since", "cursor"],
      report.providers.map((p) => [
        p.provider,
        String(p.seen),
        String(p.known),
        String(p.new),
        String(p.unpaid),
        String(p.unfulfillable),
        String(p.unsendable),
        String(p.alerted),
        time(p.since),
        time(p.cursor)
      ])
    ),
    ...report.skipped.map((s) => `${s.provider}: not reconciled (${s.reason})`),
    report.dryRun
      ? `dry run: ${report.newOrders} paid order(s) no webhook brought would be stored and sent`
      : `${report.newOrders} paid order(s) arrived only through this run${report.newOrders > 0 ? " (the owner is alerted)" : ""}`
  ].join("\n"))

export const reconcileCommand = Command.make("reconcile", { since, dryRun }, ({ dryRun, since }) =>
  Effect.gen(function*() {
    const config = yield* GatewayConfig
    yield* announce(config, "reconcile")
    if (reconcilingProviders(config).length === 0) {
      return yield* new OperatorRefusal({
        message: "nothing to reconcile: set STRIPE_API_KEY (a key that can read events) beside STRIPE_WEBHOOK_SECRET, " +
          "or CREEM_API_KEY beside CREEM_WEBHOOK_SECRET"
      })
    }
    const window = Option.map(since, (text) => ({ text, duration: parseDuration(text) }))
    if (Option.isSome(window) && Option.isNone(window.value.duration)) {
      return yield* new OperatorRefusal({ message: `--since ${JSON.stringify(window.value.text)} is not a duration (e.g. 72h)` })
    }
    if (!dryRun) yield* Console.error(`reconciling in this process: new orders are sent through ${describeMailer(config)}`)
    const report = yield* reconcile({
      dryRun,
      ...Option.match(Option.flatMap(window, (w) => w.duration), { onNone: () => ({}), onSome: (d) => ({ since: d }) })
    }).pipe(Effect.tap(logReport), Effect.provide(Gateway.layer(config)))
    yield* printReconcileReport(report)
    const failed = report.providers.filter((p) => p.error !== null)
    if (failed.length > 0) {
      return yield* new OperatorRefusal({
        message: failed.map((p) =>
          p.error!.reason === "auth"
            ? `${p.provider}: the provider refused the key in ${p.error!.setting ?? "its API key setting"} (${p.error!.detail})`
            : `${p.provider}: the listing stopped early (${p.error!.reason}: ${p.error!.detail}); its cursor stays where it was`
        ).join("\n")
      })
    }
  })).pipe(Command.withDescription("pull paid orders from the providers' APIs and send those no webhook brought"))
