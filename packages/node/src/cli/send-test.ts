import { Args, Command, Options } from "@effect/cli"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Config, Console, Effect, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { countOption } from "./count-option.js"
import { gatewayUrl } from "./gateway-client.js"
import { table } from "./print.js"
import { OperatorRefusal } from "./refusal.js"
import { PROVIDER_SECRETS, type ProviderName } from "../gateway-layer.js"
import { signedPayingEvent, type SignedEvent } from "./sample-events.js"

export interface Answer {
  readonly n: number
  readonly httpStatus: number
  readonly status: string
}

/** Posts one signed event `times` times, at most `concurrency` at once, and collects the answers. */
export const postRepeatedly = (url: string, event: SignedEvent, times: number, concurrency: number) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const request = HttpClientRequest.post(`${url}/webhooks/${event.provider}`).pipe(
      HttpClientRequest.setHeaders(event.headers),
      HttpClientRequest.bodyText(event.body, "application/json")
    )
    return yield* Effect.forEach(
      Array.from({ length: times }, (_, i) => i + 1),
      (n) =>
        client.execute(request).pipe(
          Effect.flatMap((response) =>
            Effect.map(response.json, (body): Answer => ({
              n,
              httpStatus: response.status,
              status: String((body as { status?: unknown }).status)
            }))
          ),
          Effect.scoped
        ),
      { concurrency }
    ).pipe(
      Effect.catchTag("RequestError", () =>
        new OperatorRefusal({
          message: `not sent: no gateway answered at ${url}. Start it (\`hookgate serve\`, or \`npm start\` in the repository), ` +
            "or point --url (or HOOKGATE_URL) at the running one"
        })),
      Effect.catchTag("ResponseError", (error) =>
        new OperatorRefusal({ message: `the gateway at ${url} answered ${error.response.status} with a body that is not JSON` }))
    )
  })


const secretName = (provider: ProviderName) => PROVIDER_SECRETS[provider]
/** Paddle's customer ids, as its API reference gives them. */
const PADDLE_CUSTOMER = /^ctm_[a-z\d]{26}$/
const providers = (Object.keys(PROVIDER_SECRETS) as Array<ProviderName>).map((name): [string, ProviderName] => [name, name])

export const sendTestCommand = Command.make(
  "send-test",
  {
    provider: Args.choice(providers, { name: "provider" }),
    url: Options.text("url").pipe(Options.optional, Options.withDescription("the gateway (default HOOKGATE_URL, else http://$HOST:$PORT with HOST 127.0.0.1 when unset)")),
    replays: countOption("replays", { min: 0, fallback: 0, description: "send the same signed event this many more times" }),
    concurrency: countOption("concurrency", { min: 1, fallback: 1, description: "requests in flight at once" }),
    email: Options.text("email").pipe(Options.withDefault("buyer@example.com")),
    customer: Options.text("customer").pipe(
      Options.optional,
      Options.withDescription("paddle: a customer id (ctm_…) of your Paddle account, whose email the gateway fetches")
    )
  },
  ({ concurrency, customer, email, provider, replays, url }) =>
    Effect.gen(function*() {
      const config = yield* Config.all({
        port: Config.port("PORT").pipe(Config.withDefault(8787)),
        host: Config.option(Config.string("HOST")),
        url: Config.option(Config.string("HOOKGATE_URL"))
      })
      const base = gatewayUrl({ port: config.port, host: config.host }, Option.orElse(url, () => config.url))
      if (provider === "paddle" && !Option.exists(customer, (id) => PADDLE_CUSTOMER.test(id))) {
        return yield* new OperatorRefusal({
          message: "send-test paddle needs --customer ctm_… (a customer of your Paddle account): the gateway fetches the buyer's email from Paddle's API"
        })
      }
      // The first secret of the configured list: the one the gateway checks first.
      const secrets = yield* Config.redacted(secretName(provider))
      const secret = Redacted.make(Redacted.value(secrets).split(",")[0]!.trim())
      const event = yield* signedPayingEvent(provider, secret, {
        id: randomBytes(6).toString("hex"),
        email,
        ...Option.match(customer, { onNone: () => ({}), onSome: (paddleCustomer) => ({ paddleCustomer }) })
      })
      yield* Console.log(`posting a signed ${provider} paying event for ${event.orderKey} to ${base} ${1 + replays} time(s), ${concurrency} at once`)
      const answers = yield* postRepeatedly(base, event, 1 + replays, concurrency)
      yield* Console.log(table(["#", "http", "status"], answers.map((a) => [String(a.n), String(a.httpStatus), a.status])))
      const counts = new Map<string, number>()
      for (const a of answers) counts.set(a.status, (counts.get(a.status) ?? 0) + 1)
      yield* Console.log(`summary: ${Array.from(counts, ([status, n]) => `${status} ${n}`).join(", ")}`)
      // A 401 (the secret is not the gateway's), a 404 (provider not mounted), a 5xx: the test failed.
      const refused = answers.filter((a) => a.httpStatus < 200 || a.httpStatus > 299)
      if (refused.length > 0) {
        return yield* new OperatorRefusal({
          message: `${refused.length} of ${answers.length} answer(s) were not 2xx (first: ${refused[0]!.httpStatus} ${refused[0]!.status})` +
            (refused[0]!.httpStatus === 401 ? `: is ${secretName(provider)} the running gateway's?` : "")
        })
      }
    }).pipe(Effect.provide(FetchHttpClient.layer))
).pipe(Command.withDescription("sign a realistic paying event with the configured secret and post it to a running gateway"))
