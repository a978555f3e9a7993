import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import { Campaigns } from "../campaigns/campaigns.js"
import { CampaignTemplate } from "../campaigns/campaign.js"
import { readBodyLimited } from "./read-body.js"

/** Options of the campaign admin routes (`adminRoutes({ token, campaigns: {...} })`). */
export interface CampaignRoutesOptions {
  /** Default `/admin/campaigns`. */
  readonly prefix?: string
  /** The largest JSON body accepted (default 16 MiB); an NDJSON body is streamed and has no limit. */
  readonly maxJsonBytes?: number
}

const Header = Schema.Struct({ id: Schema.String, template: Schema.encodedSchema(CampaignTemplate) })
const CreateBody = Schema.Struct({
  ...Header.fields,
  recipients: Schema.optionalWith(Schema.Array(Schema.Unknown), { default: () => [] })
})
const IdParam = Schema.Struct({ id: Schema.String })

const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status })

/** A line of an NDJSON recipient list: a JSON object or string, or a bare email. */
const recipientLine = (line: string): unknown => {
  const trimmed = line.trim()
  if (!trimmed.startsWith("{") && !trimmed.startsWith("\"")) return trimmed
  try {
    return JSON.parse(trimmed)
  } catch {
    return trimmed
  }
}

class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", { detail: Schema.String }) {}

const answer = <E extends { readonly _tag: string; readonly message: string }, R>(
  effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  effect.pipe(
    Effect.catchAll((error) => {
      switch (error._tag) {
        case "CampaignNotFound":
          return Effect.succeed(json({ status: "not_found", detail: error.message }, 404))
        case "CampaignExists":
        case "CampaignStateError":
          return Effect.succeed(json({ status: "conflict", detail: error.message }, 409))
        case "BodyTooLarge":
          return Effect.succeed(json({ status: "too_large", detail: error.message }, 413))
        case "InvalidRecipient":
        case "RecipientTooLarge":
          // The input can never succeed: a 400 that names the recipient, never a retryable 503.
          return Effect.succeed(json({ status: "bad_request", detail: error.message }, 400))
        case "StoreUnavailable":
        case "QueueUnavailable":
          return Effect.as(Effect.logError("campaign route failed", error), json({ status: "unavailable" }, 503))
        default:
          return Effect.succeed(json({ status: "bad_request", detail: error.message }, 400))
      }
    })
  )

/**
 * The campaign admin routes, runtime-neutral and unguarded: `adminRoutes` mounts
 * them behind the admin token.
 *
 * - `POST {prefix}`: create. JSON `{ id, template, recipients: [...] }`, or NDJSON
 *   (`application/x-ndjson`): a first line `{ id, template }`, then one recipient
 *   per line (an email, or `{ "email", "vars" }`), streamed into the ledger.
 * - `GET {prefix}`, `GET {prefix}/:id`: status.
 * - `POST {prefix}/:id/start`, `/pause`, `/resume`.
 */
export const campaignRoutes = (options: CampaignRoutesOptions = {}) => {
  const prefix = (options.prefix ?? "/admin/campaigns") as `/${string}`
  const withId = <E extends { readonly _tag: string; readonly message: string }, R>(f: (id: string) => Effect.Effect<unknown, E, R>) =>
    answer(Effect.flatMap(HttpRouter.schemaPathParams(IdParam), ({ id }) => Effect.map(f(id), (body) => json(body))))

  const create = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const campaigns = yield* Campaigns
    const ndjson = (request.headers["content-type"] ?? "").includes("ndjson")
    if (!ndjson) {
      const bytes = yield* readBodyLimited(request, options.maxJsonBytes ?? 16 * 1024 * 1024)
      const body = yield* Schema.decodeUnknown(Schema.parseJson(CreateBody))(new TextDecoder().decode(bytes))
      return json(yield* campaigns.create({ id: body.id, template: body.template, recipients: Stream.fromIterable(body.recipients as ReadonlyArray<string>) }), 201)
    }
    const lines = request.stream.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.filter((line) => line.trim() !== "")
    )
    return yield* Effect.scoped(Effect.gen(function*() {
      const [first, rest] = yield* Stream.peel(lines, Sink.head())
      const header = Option.isNone(first)
        ? Either.left("the body is empty")
        : Either.mapLeft(Schema.decodeUnknownEither(Schema.parseJson(Header))(first.value), (error) => error.message)
      if (Either.isLeft(header)) return yield* new BadRequest({ detail: `the first line must be { id, template }: ${header.left}` })
      const status = yield* campaigns.create({
        id: header.right.id,
        template: header.right.template,
        recipients: Stream.map(rest, (line) => recipientLine(line) as string)
      })
      return json(status, 201)
    }))
  })

  return HttpRouter.empty.pipe(
    HttpRouter.post(prefix, answer(create)),
    HttpRouter.get(
      prefix,
      answer(Effect.gen(function*() {
        const campaigns = yield* Campaigns
        const rows = yield* campaigns.list({ limit: 100 })
        return json({ campaigns: yield* Effect.forEach(rows, (row) => campaigns.status(row.id)) })
      }))
    ),
    HttpRouter.get(`${prefix}/:id`, withId((id) => Effect.flatMap(Campaigns, (c) => c.status(id)))),
    HttpRouter.post(`${prefix}/:id/start`, withId((id) => Effect.flatMap(Campaigns, (c) => c.start(id)))),
    HttpRouter.post(`${prefix}/:id/pause`, withId((id) => Effect.flatMap(Campaigns, (c) => c.pause(id)))),
    HttpRouter.post(`${prefix}/:id/resume`, withId((id) => Effect.flatMap(Campaigns, (c) => c.resume(id))))
  )
}
