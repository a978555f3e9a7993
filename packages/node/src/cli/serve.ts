import { Command, Options } from "@effect/cli"
import { ConfigProvider, Console, Effect, Layer, Logger, Option } from "effect"
import { DEV_SETTINGS, GatewayConfig } from "../config.js"
import { describeGateway } from "../gateway-layer.js"
import { gatewayServer, serverUrl } from "../server.js"

const dev = Options.boolean("dev").pipe(
  Options.withDescription("supply development secrets and an admin token where none are set (npm start)")
)

/** The environment, with the development settings underneath it when `--dev` is given. */
export const devConfigProvider = ConfigProvider.fromEnv().pipe(
  ConfigProvider.orElse(() => ConfigProvider.fromMap(new Map(Object.entries(DEV_SETTINGS))))
)

const banner = (url: string, supplied: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const config = yield* GatewayConfig
    const about = yield* describeGateway(config)
    const lines = [
      `hookgate is listening on ${url}`,
      `  providers  ${about.providers.map((p) => `${p} (POST ${url}/webhooks/${p})`).join(", ")}`,
      `  database   ${about.database}`,
      `  mailer     ${about.mailer}`,
      `  admin      ${Option.isSome(config.adminToken) ? `${url}/admin/stats (Bearer token)` : "disabled (set HOOKGATE_ADMIN_TOKEN)"}`,
      `  metrics    ${url}/metrics`
    ]
    if (supplied.length > 0) {
      lines.push("", "Development settings (npm start only; set your own in production):")
      for (const name of supplied) lines.push(`  ${name}=${DEV_SETTINGS[name]}`)
      const provider = about.providers[0]!
      const secretName = provider === "stripe" ? "STRIPE_WEBHOOK_SECRET" : "CREEM_WEBHOOK_SECRET"
      const secret = supplied.includes(secretName) ? DEV_SETTINGS[secretName] : `<your ${secretName}>`
      lines.push(
        "",
        "Try it from a second terminal:",
        `  ${secretName}=${secret} PORT=${new URL(url).port} npx hookgate send-test ${provider} --replays 3 --concurrency 4`
      )
    }
    yield* Console.log(lines.join("\n"))
  })

export const serveCommand = Command.make("serve", { dev }, ({ dev }) =>
  Effect.gen(function*() {
    const supplied = dev ? Object.keys(DEV_SETTINGS).filter((name) => process.env[name] === undefined) : []
    const config = yield* GatewayConfig
    yield* Effect.scoped(Effect.gen(function*() {
      yield* Layer.build(gatewayServer(config)).pipe(
        Effect.flatMap((context) => serverUrl.pipe(Effect.provide(context))),
        Effect.flatMap((url) => banner(url, supplied))
      )
      yield* Effect.never
    }))
  }).pipe(
    Effect.provide(Logger.json),
    Effect.withConfigProvider(dev ? devConfigProvider : ConfigProvider.fromEnv())
  )).pipe(Command.withDescription("run the HTTP gateway with the retry sweep in the same process"))
