import { Command, Options } from "@effect/cli"
import { HttpServerError } from "@effect/platform"
import { Config, Console, Duration, Effect, Layer, Option, Redacted } from "effect"
import { DEV_SETTINGS, GatewayConfig } from "../config/gateway-config.js"
import { settingsProvider, SettingsSource } from "../config/source.js"
import { describeGateway, PROVIDER_SECRETS } from "../gateway-layer.js"
import { gatewayServer, serverUrl } from "../server.js"
import { OperatorRefusal } from "./refusal.js"
import { announce } from "./target.js"

const dev = Options.boolean("dev").pipe(
  Options.withDescription("supply development secrets, HOST=127.0.0.1 and a random admin token where none are set (npm start)")
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
      `  console    ${Option.isSome(config.adminToken) ? `${url}/console (sign in with the admin token)` : "disabled (set HOOKGATE_ADMIN_TOKEN)"}`,
      `  metrics    ${
        config.metrics === "off"
          ? "off (set HOOKGATE_METRICS=prometheus)"
          : `${url}/metrics${Option.isSome(config.metricsToken) ? " (Bearer token)" : " (open; set HOOKGATE_METRICS_TOKEN to require a token)"}`
      }`
    ]
    if (supplied.length > 0) {
      lines.push("", "Development settings (supplied by serve --dev, as npm start runs it; never use them in production):")
      for (const name of supplied) lines.push(`  ${name}=${DEV_SETTINGS[name]}`)
      const provider = about.providers[0]!
      const secretName = PROVIDER_SECRETS[provider]
      const secret = supplied.includes(secretName) ? DEV_SETTINGS[secretName] : `<your ${secretName}>`
      const port = new URL(url).port
      const token = Option.match(config.adminToken, {
        onNone: () => undefined,
        onSome: (t) => (supplied.includes("HOOKGATE_ADMIN_TOKEN") ? Redacted.value(t) : "<your HOOKGATE_ADMIN_TOKEN>")
      })
      lines.push(
        "",
        "Try it from a second terminal:",
        `  ${secretName}=${secret} PORT=${port} npx @hookgate/node send-test ${provider} --replays 3 --concurrency 4`,
        ...(token === undefined ? [] : [`  HOOKGATE_ADMIN_TOKEN=${token} PORT=${port} npx @hookgate/node sweep`]),
        "  npx @hookgate/node config check --dev"
      )
    }
    // For the human at the terminal, on stderr: stdout carries only log lines (one JSON object each by default).
    yield* Console.error(lines.join("\n"))
    yield* Effect.logInfo("listening").pipe(
      Effect.annotateLogs({ url, providers: about.providers, database: about.database, mailer: config.mailer })
    )
  })

/** "port in use", said in those words, instead of the server's generic error. */
const explainServeError = (config: GatewayConfig) => (error: HttpServerError.ServeError) =>
  new OperatorRefusal({
    message: (error.cause as NodeJS.ErrnoException | undefined)?.code === "EADDRINUSE"
      ? `port ${config.port} is in use${Option.match(config.host, { onNone: () => "", onSome: (h) => ` on ${h}` })}: stop the process that holds it, or set PORT to another port`
      : `the server could not start on port ${config.port}: ${(error.cause as Error | undefined)?.message ?? String(error.cause)}`
  })

const run = (supplied: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const config = yield* GatewayConfig
    yield* announce(config, "serve")
    yield* Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(gatewayServer(config)).pipe(
        Effect.catchIf(
          (error): error is HttpServerError.ServeError => error instanceof HttpServerError.ServeError,
          (error) => Effect.fail(explainServeError(config)(error))
        )
      )
      yield* banner(yield* Effect.provide(serverUrl, context), supplied)
      // SIGTERM and SIGINT interrupt this fiber: say so before the scope closes the server.
      yield* Effect.never.pipe(
        Effect.onInterrupt(() =>
          Effect.logInfo("shutting down").pipe(
            Effect.annotateLogs({ graceMs: Duration.toMillis(config.shutdownGrace) })
          )
        )
      )
    }))
  }).pipe(Effect.onInterrupt(() => Effect.logInfo("stopped")))

export const serveCommand = Command.make("serve", { dev }, ({ dev }) =>
  Effect.gen(function*() {
    if (!dev) return yield* run([])
    const { file } = yield* SettingsSource
    // The development settings sit under the environment and the settings file.
    const provider = yield* settingsProvider({ file, defaults: DEV_SETTINGS })
    const given = yield* settingsProvider({ file })
    const supplied = yield* Effect.filter(Object.keys(DEV_SETTINGS), (name) =>
      Effect.map(Config.option(Config.string(name)), Option.isNone).pipe(Effect.withConfigProvider(given)))
    return yield* run(supplied).pipe(Effect.withConfigProvider(provider))
  })).pipe(Command.withDescription("run the HTTP gateway with the retry sweep in the same process"))
