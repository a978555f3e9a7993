import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import { Campaigns } from "../campaigns/campaigns.js"
import { CampaignTemplate, RecipientOnLine } from "../campaigns/campaign.js"
import { answerCampaignError, type CampaignRouteError } from "./contract.js"
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

class BadRequest extends Data.TaggedError("BadRequest")<{ readonly detail: string }> {
  override get message() {
    return `bad request: ${this.detail}`
  }
}

const campaignErrors: ReadonlySet<string> = new Set<CampaignRouteError["_tag"]>([
  "CampaignNotFound",
  "CampaignExists",
  "CampaignStateError",
  "InvalidCampaign",
  "InvalidRecipient",
  "RecipientTooLarge",
  "BodyTooLarge",
  "StoreUnavailable",
  "QueueUnavailable"
])

/** Typed failures through the contract (`answerCampaignError`); anything else the request got wrong is a 400. */
const answer = <E extends { readonly _tag: string; readonly message: string }, R>(
  effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  effect.pipe(
    Effect.catchAll((error) => {
      if (!campaignErrors.has(error._tag)) return Effect.succeed(json({ status: "bad_request", detail: error.message }, 400))
      const answer = answerCampaignError(error as unknown as CampaignRouteError)
      const response = json(answer.body, answer.httpStatus)
      return answer.httpStatus === 503 ? Effect.as(Effect.logError("campaign route failed", error), response) : Effect.succeed(response)
    })
  )

/** `?replace=true` (or `1`): replace a draft under that id instead of refusing it. */
const Replace = Schema.Struct({
  replace: Schema.optionalWith(Schema.Literal("true", "false", "1", "0"), { default: () => "false" as const })
})

/**
 * The campaign admin routes, runtime-neutral and unguarded: `adminRoutes` mounts
 * them behind the admin token.
 *
 * - `POST {prefix}`: create. JSON `{ id, template, recipients: [...] }`, or NDJSON
 *   (`application/x-ndjson`): a first line `{ id, template }`, then one recipient
 *   per line (an email, or `{ "email", "vars" }`), streamed into the ledger (a refused
 *   recipient is named by its line, the first line being 1). 201; an id
 *   in use is 409 unless `?replace=true` and it is still a draft (then 200, replaced; 201 when
 *   `?replace=true` created it).
 * - `GET {prefix}`, `GET {prefix}/:id`: status.
 * - `POST {prefix}/:id/start`, `/pause`, `/resume`: the state machine
 *   (`campaignTransitions`); a transition it refuses is 409.
 */
export const campaignRoutes = (options: CampaignRoutesOptions = {}) => {
  const prefix = (options.prefix ?? "/admin/campaigns") as `/${string}`
  const withId = <E extends { readonly _tag: string; readonly message: string }, R>(f: (id: string) => Effect.Effect<unknown, E, R>) =>
    answer(Effect.flatMap(HttpRouter.schemaPathParams(IdParam), ({ id }) => Effect.map(f(id), (body) => json(body))))

  const create = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const campaigns = yield* Campaigns
    const { replace: replaceParam } = yield* HttpServerRequest.schemaSearchParams(Replace).pipe(
      Effect.mapError(() => new BadRequest({ detail: "replace must be true or false" }))
    )
    const replace = replaceParam === "true" || replaceParam === "1"
    // 201 when it created the campaign, 200 when it replaced a draft: with `replace`, whether the
    // id was in use is read first (two replaces of one new id at once may both answer 201).
    const statusOf = (id: string) =>
      replace
        ? campaigns.status(id).pipe(Effect.as(200), Effect.catchTag("CampaignNotFound", () => Effect.succeed(201)))
        : Effect.succeed(201)
    const ndjson = (request.headers["content-type"] ?? "").includes("ndjson")
    if (!ndjson) {
      const bytes = yield* readBodyLimited(request, options.maxJsonBytes ?? 16 * 1024 * 1024)
      const body = yield* Schema.decodeUnknown(Schema.parseJson(CreateBody))(new TextDecoder().decode(bytes))
      const recipients = Stream.fromIterable(body.recipients as ReadonlyArray<string>)
      const code = yield* statusOf(body.id)
      return json(yield* campaigns.create({ id: body.id, template: body.template, recipients, replace }), code)
    }
    // Each line with its number (1-based, every line counted: the header is line 1), so a
    // refused recipient is named by the line it is on.
    const lines = request.stream.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.zipWithIndex,
      Stream.filter(([line]) => line.trim() !== "")
    )
    return yield* Effect.scoped(Effect.gen(function*() {
      const [first, rest] = yield* Stream.peel(lines, Sink.head())
      const header = Option.isNone(first)
        ? Either.left("the body is empty")
        : Either.mapLeft(Schema.decodeUnknownEither(Schema.parseJson(Header))(first.value[0]), (error) => error.message)
      if (Either.isLeft(header)) return yield* new BadRequest({ detail: `the first line must be { id, template }: ${header.left}` })
      const code = yield* statusOf(header.right.id)
      const status = yield* campaigns.create({
        id: header.right.id,
        template: header.right.template,
        recipients: Stream.map(rest, ([line, i]) => new RecipientOnLine({ line: i + 1, recipient: recipientLine(line) })),
        replace
      })
      return json(status, code)
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
