import { Args, Command, Options } from "@effect/cli"
import { EpochMillis, OrderStore } from "@hookgate/core"
import { Console, Duration, Effect, Option } from "effect"
import { GatewayConfig } from "../config/gateway-config.js"
import { withStore } from "./context.js"
import { describeAttempts, printOrders, printUnfulfilled } from "./print.js"
import { countOption } from "./count-option.js"
import { OperatorRefusal } from "./refusal.js"

const key = Args.text({ name: "key" }).pipe(Args.withDescription("the order key, e.g. stripe:cs_test_…"))

const list = Command.make(
  "list",
  {
    status: Options.choice("status", ["pending", "sent", "failed", "capped"]).pipe(Options.optional),
    limit: countOption("limit", { min: 1, fallback: 50, description: "at most this many orders (default 50)" })
  },
  ({ limit, status }) =>
    withStore("orders list")(Effect.gen(function*() {
      const store = yield* OrderStore
      yield* printOrders(yield* store.list({ limit, status: Option.getOrUndefined(status) }))
      const unfulfilled = yield* store.receipts({ outcomes: UNFULFILLED, limit: 1000 })
      if (unfulfilled.length > 0) {
        yield* Console.log(
          `\n${unfulfilled.length} paid event(s) made no order (not decodable): see \`hookgate orders unfulfillable\``
        )
      }
    }))
).pipe(Command.withDescription("list orders, newest first (and say if paid events made no order)"))

const UNFULFILLED = ["unfulfillable", "malformed"] as const

const unfulfillable = Command.make(
  "unfulfillable",
  { limit: countOption("limit", { min: 1, fallback: 50, description: "at most this many events (default 50)" }) },
  ({ limit }) =>
    withStore("orders unfulfillable")(Effect.flatMap(OrderStore, (store) => store.receipts({ outcomes: UNFULFILLED, limit })))
      .pipe(Effect.flatMap(printUnfulfilled))
).pipe(Command.withDescription("list verified paid events that could not become an order, with the decoding error"))

const show = Command.make("show", { key }, ({ key }) =>
  withStore("orders show")(Effect.gen(function*() {
    const store = yield* OrderStore
    const order = yield* store.get(key)
    if (Option.isNone(order)) return yield* new OperatorRefusal({ message: `no order ${key}` })
    const receipts = yield* store.receipts({ orderKey: key, limit: 100 })
    yield* Console.log(JSON.stringify({ order: order.value, receipts }, null, 2))
  }))).pipe(Command.withDescription("show an order and the events received for it"))

const retry = Command.make(
  "retry",
  { key, confirm: Options.boolean("confirm").pipe(Options.withDescription("really put the order back in the queue")) },
  ({ confirm, key }) =>
    withStore("orders retry")(Effect.gen(function*() {
      const store = yield* OrderStore
      const order = yield* store.get(key)
      if (Option.isNone(order)) return yield* new OperatorRefusal({ message: `no order ${key}` })
      yield* Console.log(describeAttempts(order.value))
      if (!confirm) {
        return yield* new OperatorRefusal({ message: "not retried: add --confirm to put this order back in the queue" })
      }
      const requeued = yield* store.requeue(key, yield* EpochMillis.now)
      if (Option.isNone(requeued)) {
        return yield* new OperatorRefusal({ message: `not retried: only capped or failed orders can be retried (this one is ${order.value.status})` })
      }
      const sweepEvery = Duration.format(Duration.decode((yield* GatewayConfig).retry.sweepEvery ?? "10 minutes"))
      // Requeuing sends nothing: the running gateway sends it, through the mailer it serves with.
      yield* Console.log(
        `requeued ${key}: the running gateway sends it at its next sweep (every ${sweepEvery}); ` +
          "`hookgate sweep` asks it to sweep now"
      )
    }))
).pipe(Command.withDescription("put a capped or failed order back in the queue (needs --confirm)"))

export const ordersCommand = Command.make("orders").pipe(
  Command.withDescription("inspect and retry orders"),
  Command.withSubcommands([list, show, retry, unfulfillable])
)
