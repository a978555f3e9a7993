import { Command } from "@effect/cli"
import { FetchHttpClient } from "@effect/platform"
import { OrderStore, RetryPolicy, sweep } from "@hookgate/core"
import { Mailer, Transient } from "@hookgate/core/mail"
import { ConfigProvider, Console, Duration, Effect, Layer, Logger, LogLevel, Redacted, Ref } from "effect"
import { startPaddleTestServer } from "@hookgate/provider-paddle/testing"
import { mkdtemp, readdir } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DEV_SETTINGS, GatewayConfig } from "../config/gateway-config.js"
import * as OutboxMailer from "../mailer/OutboxMailer.js"
import { gatewayServer, serverUrl } from "../server.js"
import { table } from "./print.js"
import { PROVIDER_SECRETS, type ProviderName } from "../gateway-layer.js"
import { signedPayingEvent } from "./sample-events.js"
import { postRepeatedly } from "./send-test.js"

const ORDERS_PER_PROVIDER = 2
const PROVIDERS: ReadonlyArray<ProviderName> = ["stripe", "creem", "lemonsqueezy", "polar", "paddle"]
const PADDLE_SECRET = "pdl_ntfset_dev_hookgate_demo_only"
const BURST = 4 // deliveries of each event at once, as a provider's overlapping retries
const REPLAYS = 2 // later deliveries of the same event, one at a time

/**
 * `hookgate demo`: a gateway on a temporary database and outbox, a burst of
 * signed events of every provider (Stripe, Creem, Lemon Squeezy, Polar, Paddle, whose
 * customers' emails come from a local stand-in for Paddle's API) each delivered several
 * times at once, one send that fails until the mail server "comes back", and the sweep
 * recovering it.
 */
export const demoCommand = Command.make("demo", {}, () =>
  Effect.gen(function*() {
    const dir = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "hookgate-demo-")))
    const outbox = join(dir, "outbox")
    // Paddle's transactions name a customer; the gateway fetches the email from this stand-in of Paddle's API.
    const paddle = yield* Effect.acquireRelease(Effect.promise(() => startPaddleTestServer()), (server) => Effect.promise(() => server.close()))
    const settings: Record<string, string> = {
      ...DEV_SETTINGS,
      PADDLE_WEBHOOK_SECRET: PADDLE_SECRET,
      PADDLE_API_KEY: paddle.apiKey,
      PADDLE_API_BASE_URL: paddle.url,
      PORT: "0",
      HOOKGATE_DB: join(dir, "hookgate.db"),
      HOOKGATE_OUTBOX: outbox
    }
    const config = yield* GatewayConfig.pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings))))
    )

    // The outbox, except that one order's sends fail while the "mail server" is down.
    const down = yield* Ref.make(true)
    const failingKey = "hookgate/order/stripe:cs_test_demo-stripe-1"
    const base = yield* OutboxMailer.make(outbox)
    const mailer = Layer.succeed(Mailer, {
      ...base,
      send: (email, options) =>
        Effect.flatMap(Ref.get(down), (isDown) =>
          isDown && options.idempotencyKey === failingKey
            ? Effect.fail(new Transient({ mailer: "outbox", detail: "mail server unreachable (demo)" }))
            : base.send(email, options))
    })
    // A short durable backoff, so that the demo's retry is due within a second.
    const retryPolicy = RetryPolicy.layer({ backoffBase: "500 millis", maxBackoff: "1 second" })

    yield* Effect.gen(function*() {
      const context = yield* Layer.build(gatewayServer(config, { mailer, retryPolicy }))
      const url = yield* Effect.provide(serverUrl, context)
      yield* Console.log(`hookgate demo: gateway on ${url}, database and outbox in ${dir}\n`)

      const orders = PROVIDERS.flatMap((provider) =>
        Array.from({ length: ORDERS_PER_PROVIDER }, (_, i) => ({ provider, id: `demo-${provider}-${i + 1}` })))
      const answers = yield* Effect.forEach(orders, ({ id, provider }) =>
        Effect.gen(function*() {
          const secret = Redacted.make(settings[PROVIDER_SECRETS[provider]]!)
          const email = `${id}@example.com`
          const paddleCustomer = provider === "paddle" ? paddle.addCustomer({ email }) : undefined
          const event = yield* signedPayingEvent(provider, secret, { id, email, ...(paddleCustomer === undefined ? {} : { paddleCustomer }) })
          const burst = yield* postRepeatedly(url, event, BURST, BURST)
          const replays = yield* postRepeatedly(url, event, REPLAYS, 1)
          return { orderKey: event.orderKey, statuses: [...burst, ...replays].map((a) => a.status) }
        }), { concurrency: "unbounded" }).pipe(Effect.provide(FetchHttpClient.layer))

      yield* Console.log(table(
        ["order", "answers to its deliveries"],
        answers.map((a) => [a.orderKey, a.statuses.join(" ")])
      ))

      yield* Ref.set(down, false)
      yield* Effect.sleep(Duration.seconds(1.2))
      const report = yield* Effect.provide(sweep(), context)
      yield* Console.log(`\nthe mail server is back; one sweep: sent ${report.sent} of ${report.scanned} due order(s)\n`)

      const stats = yield* Effect.provide(Effect.flatMap(OrderStore, (s) => s.stats), context)
      const files = (yield* Effect.promise(() => readdir(outbox))).sort()
      const all = answers.flatMap((a) => a.statuses)
      const count = (status: string) => all.filter((s) => s === status).length
      yield* Console.log(table(["figure", "value"], [
        ["orders", String(orders.length)],
        ["webhook deliveries", `${all.length} (per order: ${BURST} at once, then ${REPLAYS} replays)`],
        ["answered sent / duplicate / in_progress / retry", `${count("sent")} / ${count("duplicate")} / ${count("in_progress")} / ${count("retry")}`],
        ["orders sent", String(stats.orders.sent)],
        ["duplicates prevented", String(stats.duplicatesPrevented)],
        ["retries recovered by the sweep", String(report.sent)],
        ["emails in the outbox", String(files.length)]
      ]))
      yield* Console.log(`\noutbox (${outbox}):\n${files.map((f) => `  ${f}`).join("\n")}`)
      if (files.length !== orders.length || stats.orders.sent !== orders.length) {
        return yield* Effect.dieMessage("the demo expected exactly one email per order")
      }
      yield* Console.log(`\none email per order. Inspect with: HOOKGATE_DB=${settings.HOOKGATE_DB} npx @hookgate/node orders list`)
    })
  }).pipe(Effect.scoped, Logger.withMinimumLogLevel(LogLevel.Error)) // the demo fails one send on purpose: no WARN line for it
).pipe(Command.withDescription("run a gateway on a temporary database and show deduplication and recovery"))
