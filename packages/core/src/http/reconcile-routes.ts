import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { parseDuration } from "../kernel/duration-config.js"
import { reconcile } from "../orders/reconcile.js"

/** The optional body of `POST /admin/reconcile`: how far back (`"72h"`, any duration form), a dry run. */
const ReconcileBody = Schema.Struct({
  since: Schema.optional(Schema.String),
  dryRun: Schema.optional(Schema.Boolean)
})

const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status })

/**
 * `POST /admin/reconcile`: one reconciliation run now, answered with its report
 * (per provider: seen, known, new, unpaid, unfulfillable, cursor, error). 200 when
 * every provider's listing finished, 502 when one stopped early (its error says
 * why, naming the setting of a refused key), 400 for a body that does not parse.
 */
export const reconcileRoutes = HttpRouter.empty.pipe(
  HttpRouter.post(
    "/admin/reconcile",
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const text = yield* Effect.orElseSucceed(request.text, () => "")
      const parsed = text.trim() === ""
        ? Option.some({} as typeof ReconcileBody.Type)
        : Schema.decodeUnknownOption(Schema.parseJson(ReconcileBody))(text)
      if (Option.isNone(parsed)) return json({ status: "bad_request", detail: "the body is not { since?, dryRun? }" }, 400)
      const since = parsed.value.since === undefined ? Option.none() : parseDuration(parsed.value.since)
      if (parsed.value.since !== undefined && Option.isNone(since)) {
        return json({ status: "bad_request", detail: `since: ${JSON.stringify(parsed.value.since)} is not a duration` }, 400)
      }
      const report = yield* reconcile({
        ...(Option.isSome(since) ? { since: since.value } : {}),
        dryRun: parsed.value.dryRun === true
      })
      return json({ status: report.failed ? "incomplete" : "ok", ...report, newOrders: report.newOrders }, report.failed ? 502 : 200)
    })
  )
)
