import { FetchHttpClient, HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { SweepReport } from "@hookgate/core"
import { Effect, Option, Redacted } from "effect"
import type { GatewayConfig } from "../config/gateway-config.js"
import { describeMailer } from "../gateway-layer.js"
import { OperatorRefusal } from "./refusal.js"

/**
 * The running gateway's admin API, as the CLI uses it: a command that sends
 * (sweep) asks the gateway to do it, so the email goes out through the mailer
 * the gateway serves with, never through whatever this shell happens to configure.
 */

/** `HOOKGATE_URL`, else this host's `HOST`:`PORT` (an any-interface host is reached on loopback). */
export const gatewayUrl = (config: Pick<GatewayConfig, "host" | "port">, explicit: Option.Option<string>) =>
  Option.getOrElse(explicit, () => {
    const host = Option.getOrElse(Option.filter(config.host, (h) => h !== "0.0.0.0" && h !== "::"), () => "127.0.0.1")
    return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`
  })

export const sweepThroughGateway = (config: GatewayConfig, base: string) =>
  Effect.gen(function*() {
    if (Option.isNone(config.adminToken)) {
      return yield* new OperatorRefusal({
        message: "not swept: set HOOKGATE_ADMIN_TOKEN (the gateway's) so this command can ask the running gateway to sweep, " +
          `or add --local to sweep in this process through ${describeMailer(config)}`
      })
    }
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.post(`${base}/admin/sweep`).pipe(HttpClientRequest.bearerToken(Redacted.value(config.adminToken.value)))
    ).pipe(
      Effect.catchTag("RequestError", () =>
        new OperatorRefusal({
          message: `not swept: no gateway answered at ${base}. Start it (\`hookgate serve\`): its sweep sends due orders on its own. ` +
            `Or add --local to sweep in this process through ${describeMailer(config)}`
        }))
    )
    if (response.status === 401) {
      return yield* new OperatorRefusal({ message: `not swept: the gateway at ${base} refused HOOKGATE_ADMIN_TOKEN` })
    }
    if (response.status !== 200) {
      return yield* new OperatorRefusal({ message: `not swept: the gateway at ${base} answered ${response.status}` })
    }
    return yield* HttpClientResponse.schemaBodyJson(SweepReport)(response).pipe(
      Effect.mapError(() => new OperatorRefusal({ message: `the gateway at ${base} answered with an unreadable sweep report` }))
    )
  }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
