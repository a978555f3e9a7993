import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AlertStore } from "../alerts/alert-store.js"
import { Campaigns, type CampaignsShape } from "../campaigns/campaigns.js"
import { CampaignStore } from "../campaigns/campaign-store.js"
import type { CampaignStatus } from "../campaigns/campaign.js"
import * as EpochMillis from "../kernel/EpochMillis.js"
import { RetryPolicy } from "../kernel/retry-policy.js"
import { MailerCircuit } from "../mail/circuit.js"
import { sha256Hex } from "../kernel/digest.js"
import { Mailer } from "../mail/mailer.js"
import { deliver } from "../orders/deliver.js"
import { lastRuns } from "../orders/last-runs.js"
import { type Order, OrderStatus } from "../orders/order.js"
import { OrderStore } from "../orders/order-store.js"
import { Renderer } from "../orders/renderer.js"
import type { consoleKit } from "./kit.js"
import { type Frame, notice, page, securityHeaders } from "./render.js"
import { iso, lastRunsView, timelineView } from "./views.js"

type Kit = ReturnType<typeof consoleKit>

const PAGE_SIZE = 50

/** Results of an action, shown after its redirect: fixed sentences, nothing reflected from the request. */
const DONE: Readonly<Record<string, { readonly kind: "info" | "error"; readonly text: string }>> = {
  sent: { kind: "info", text: "Sent: the mailer accepted the email." },
  requeued: { kind: "info", text: "Requeued: it will be attempted again." },
  retry: { kind: "error", text: "Attempted: the mailer failed again; it stays queued." },
  held: { kind: "error", text: "Held: the mailer is misconfigured (its circuit is open)." },
  not_retryable: { kind: "error", text: "Only a failed or capped order can be retried." },
  again_sent: { kind: "info", text: "Sent again under a new idempotency key: the buyer gets another email." },
  again_failed: { kind: "error", text: "Sending again failed: nothing was sent. See the log for the mailer's answer." },
  confirm: { kind: "error", text: "Tick the box to confirm: a new send gives the buyer another email." },
  resolved: { kind: "info", text: "Resolved." },
  not_open: { kind: "error", text: "That alert is resolved already (or does not exist)." },
  paused: { kind: "info", text: "Paused." },
  resumed: { kind: "info", text: "Resumed." },
  refused: { kind: "error", text: "The campaign's state does not allow that." }
}

const flashOf = (request: HttpServerRequest.HttpServerRequest) => {
  const done = new URLSearchParams(request.url.split("?")[1] ?? "").get("done")
  return done === null ? undefined : DONE[done]
}

const orderHref = (base: string, key: string) => `${base}/orders/${encodeURIComponent(key)}`

const KeyParam = Schema.Struct({ key: Schema.String })
const IdParam = Schema.Struct({ id: Schema.String })

const OrdersQuery = Schema.Struct({
  state: Schema.optional(Schema.Union(OrderStatus, Schema.Literal(""))),
  provider: Schema.optional(Schema.String),
  q: Schema.optional(Schema.String),
  after: Schema.optional(Schema.String)
})

/** A page's last row as the next page's cursor: `<createdAt>.<key>`. */
const cursorOf = (order: Order) => `${order.createdAt}.${order.key}`
const readCursor = (cursor: string | undefined) => {
  if (cursor === undefined) return undefined
  const dot = cursor.indexOf(".")
  const createdAt = Number(cursor.slice(0, dot))
  return dot > 0 && Number.isSafeInteger(createdAt) ? { createdAt, key: cursor.slice(dot + 1) } : undefined
}

const blankToUndefined = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value.trim())

const overview = (kit: Kit) =>
  kit.view(({ frame }) =>
    Effect.gen(function*() {
      const store = yield* OrderStore
      const stats = yield* store.stats
      const policy = yield* RetryPolicy
      const due = yield* store.due(yield* EpochMillis.now, { limit: 1000, maxAttempts: policy.maxAttempts })
      const open = yield* Effect.flatMap(AlertStore, (alerts) => alerts.list({ limit: 1000, state: "open" }))
      const circuit = yield* Effect.flatMap(MailerCircuit, (c) => c.status)
      const counts = (["pending", "sent", "failed", "capped"] as const).map((status) => ({ status, count: stats.orders[status] }))
      const runs = lastRunsView(yield* lastRuns)
      return yield* page("overview", frame("Overview"), {
        ...runs,
        counts,
        due: due.length === 1000 ? "1000+" : due.length,
        openAlerts: open.length === 1000 ? "1000+" : open.length,
        stats,
        circuit: { ok: circuit.mailer === "ok", ...circuit }
      })
    })
  )

const orderList = (kit: Kit) =>
  kit.view(({ base, frame }) =>
    Effect.gen(function*() {
      const query = yield* HttpServerRequest.schemaSearchParams(OrdersQuery).pipe(Effect.orElseSucceed(() => ({} as typeof OrdersQuery.Type)))
      const state = query.state === "" ? undefined : query.state
      const provider = blankToUndefined(query.provider)
      const q = blankToUndefined(query.q)
      const rows = yield* Effect.flatMap(OrderStore, (store) =>
        store.list({ status: state, provider, search: q, after: readCursor(query.after), limit: PAGE_SIZE + 1 }))
      const shown = rows.slice(0, PAGE_SIZE)
      const nextParams = new URLSearchParams({
        ...(state === undefined ? {} : { state }),
        ...(provider === undefined ? {} : { provider }),
        ...(q === undefined ? {} : { q }),
        after: shown.length > 0 ? cursorOf(shown[shown.length - 1]!) : ""
      })
      return yield* page("orders", frame("Orders"), {
        states: [{ value: "", label: "any" }, ...OrderStatus.literals.map((value) => ({ value, label: value }))].map((s) => ({
          ...s,
          selected: s.value === (state ?? "")
        })),
        provider: provider ?? "",
        q: q ?? "",
        empty: shown.length === 0,
        rows: shown.map((order) => ({
          key: order.key,
          href: orderHref(base, order.key),
          email: order.fulfilment.email,
          status: order.status,
          attempts: order.attempts,
          created: iso(order.createdAt)
        })),
        next: rows.length > PAGE_SIZE ? `${base}/orders?${nextParams.toString()}` : undefined
      })
    })
  )

const orderPage = (kit: Kit) =>
  kit.view(({ base, frame, session }) =>
    Effect.gen(function*() {
      const { key } = yield* HttpRouter.schemaPathParams(KeyParam).pipe(Effect.orDie)
      const request = yield* HttpServerRequest.HttpServerRequest
      const store = yield* OrderStore
      const found = yield* store.get(key)
      if (Option.isNone(found)) return yield* notice(frame("Not found"), "There is no order under that key.", 404, `${base}/orders`)
      const order = found.value
      const receipts = yield* store.receipts({ orderKey: key, limit: 100 })
      const alerts = yield* Effect.flatMap(AlertStore, (a) => a.list({ limit: 100, orderKey: key }))
      const attempts = yield* store.attempts(key, { limit: 100 })
      const timeline = timelineView(order, attempts, receipts, alerts)
      const f = order.fulfilment
      return yield* page("order", frame(`Order ${order.key}`, { flash: flashOf(request) }), {
        order,
        amount: `${f.amount} ${f.currency}`,
        metadata: Object.entries(f.metadata ?? {}).map(([name, value]) => ({ name, value: String(value) })),
        timeline,
        retryable: order.status === "capped" || order.status === "failed",
        actionBase: orderHref(base, order.key),
        csrf: session.csrf
      })
    })
  )

const retryOrder = (kit: Kit) =>
  kit.action(({ base, session }) =>
    Effect.gen(function*() {
      const { key } = yield* HttpRouter.schemaPathParams(KeyParam).pipe(Effect.orDie)
      const back = (done: string) => HttpServerResponse.redirect(`${orderHref(base, key)}?done=${done}`, { status: 303, headers: securityHeaders })
      const requeued = yield* Effect.flatMap(OrderStore, (store) => Effect.flatMap(EpochMillis.now, (now) => store.requeue(key, now)))
      if (Option.isNone(requeued)) return back("not_retryable")
      yield* Effect.logInfo("console: retry now").pipe(Effect.annotateLogs({ operator: session.operator, orderKey: key }))
      const outcome = yield* deliver(key, { dueOnly: false })
      return back(outcome._tag === "Sent" ? "sent" : outcome._tag === "Held" ? "held" : outcome._tag === "Retry" ? "retry" : "requeued")
    })
  )

/**
 * "Send again": an explicit new send of an order's email under a new idempotency key (the
 * buyer lost the first one), after a confirmation, logged with the operator who asked.
 * The order's own state is left as it is.
 */
const sendAgain = (kit: Kit) =>
  kit.action(({ base, session }, form) =>
    Effect.gen(function*() {
      const { key } = yield* HttpRouter.schemaPathParams(KeyParam).pipe(Effect.orDie)
      const back = (done: string) => HttpServerResponse.redirect(`${orderHref(base, key)}?done=${done}`, { status: 303, headers: securityHeaders })
      if (Option.getOrUndefined(UrlParams.getFirst(form, "confirm")) !== "yes") return back("confirm")
      const found = yield* Effect.flatMap(OrderStore, (store) => store.get(key))
      if (Option.isNone(found)) return back("again_failed")
      const nonce = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("")
      const idempotencyKey = `hookgate/again/${(yield* sha256Hex(key)).slice(0, 32)}/${nonce}`
      const log = Effect.annotateLogs({ operator: session.operator, orderKey: key, idempotencyKey })
      const sent = yield* Effect.flatMap(Renderer, (renderer) => renderer.render(found.value)).pipe(
        Effect.flatMap((email) => Effect.flatMap(Mailer, (mailer) => mailer.send(email, { idempotencyKey }))),
        Effect.either
      )
      if (sent._tag === "Left") {
        yield* Effect.logWarning("console: send again failed", sent.left._tag).pipe(log)
        return back("again_failed")
      }
      yield* Effect.logInfo("console: sent again").pipe(log, Effect.annotateLogs({ messageId: sent.right.messageId }))
      return back("again_sent")
    })
  )

const AlertsQuery = Schema.Struct({ state: Schema.optional(Schema.Literal("open", "resolved")) })

const alertList = (kit: Kit) =>
  kit.view(({ base, frame, session }) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { state } = yield* HttpServerRequest.schemaSearchParams(AlertsQuery).pipe(Effect.orElseSucceed(() => ({ state: undefined })))
      const open = state !== "resolved"
      const rows = yield* Effect.flatMap(AlertStore, (a) => a.list({ limit: 200, state: open ? "open" : "resolved" }))
      return yield* page("alerts", frame("Alerts", { flash: flashOf(request) }), {
        open,
        rows: rows.map((a) => ({
          kind: a.kind,
          created: iso(a.createdAt),
          orderKey: a.orderKey,
          orderHref: a.orderKey === null ? undefined : orderHref(base, a.orderKey),
          message: a.message,
          resolved: a.resolvedAt !== null,
          resolvedAt: iso(a.resolvedAt),
          note: a.resolutionNote,
          resolveHref: `${base}/alerts/${encodeURIComponent(a.id)}/resolve`,
          csrf: session.csrf
        }))
      })
    })
  )

const resolveAlert = (kit: Kit) =>
  kit.action(({ base, session }, form) =>
    Effect.gen(function*() {
      const { id } = yield* HttpRouter.schemaPathParams(IdParam).pipe(Effect.orDie)
      const note = Option.getOrElse(UrlParams.getFirst(form, "note"), () => "").trim().slice(0, 500)
      const at = yield* EpochMillis.now
      const resolved = yield* Effect.flatMap(AlertStore, (a) => a.resolve(id, { at, note: `${note} (${session.operator})` }))
      if (resolved) yield* Effect.logInfo("console: alert resolved").pipe(Effect.annotateLogs({ operator: session.operator, alertId: id }))
      return HttpServerResponse.redirect(`${base}/alerts?done=${resolved ? "resolved" : "not_open"}`, { status: 303, headers: securityHeaders })
    })
  )

const progressView = (base: string, status: CampaignStatus) => ({
  id: status.id,
  state: status.state,
  total: status.total,
  sent: status.sent,
  failed: status.failed,
  remaining: status.remaining + status.reserved,
  done: status.sent + status.failed,
  href: `${base}/campaigns/${encodeURIComponent(status.id)}`,
  progressHref: `${base}/campaigns/${encodeURIComponent(status.id)}/progress`
})

/** Campaign pages need the `Campaigns` service: where it is not provided they say so (404). */
const withCampaigns = <E, R>(
  frame: (title: string) => Frame,
  f: (campaigns: CampaignsShape) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  Effect.flatMap(Effect.serviceOption(Campaigns), Option.match({
    onNone: () => notice(frame("Campaigns"), "Campaigns are not enabled here.", 404),
    onSome: f
  }))

const campaignList = (kit: Kit) =>
  kit.view(({ base, frame }) =>
    withCampaigns((t) => frame(t), (campaigns) =>
      Effect.gen(function*() {
        const rows = yield* campaigns.list({ limit: 100 })
        const statuses = yield* Effect.forEach(rows, (row) => campaigns.status(row.id))
        return yield* page("campaigns", frame("Campaigns", { script: true }), { rows: statuses.map((s) => progressView(base, s)) })
      }).pipe(Effect.catchTag("CampaignNotFound", () => notice(frame("Campaigns"), "A campaign went away meanwhile.", 404))))
  )

const campaignPage = (kit: Kit) =>
  kit.view(({ base, frame, session }) =>
    withCampaigns((t) => frame(t), (campaigns) =>
      Effect.gen(function*() {
        const { id } = yield* HttpRouter.schemaPathParams(IdParam).pipe(Effect.orDie)
        const request = yield* HttpServerRequest.HttpServerRequest
        const status = yield* campaigns.status(id)
        const rows = yield* campaigns.list({ limit: 1000 })
        const row = rows.find((r) => r.id === id)
        const failed = yield* Effect.flatMap(Effect.serviceOption(CampaignStore), Option.match({
          onNone: () => Effect.succeed([]),
          onSome: (store) => store.failedRecipients(id, { limit: 200 })
        }))
        return yield* page("campaign", frame(`Campaign ${id}`, { script: true, flash: flashOf(request) }), {
          ...progressView(base, status),
          subject: row?.template.subject ?? "",
          failedRecipients: failed,
          canPause: status.state === "running",
          canResume: status.state === "paused",
          actionBase: progressView(base, status).href,
          csrf: session.csrf
        })
      }).pipe(Effect.catchTag("CampaignNotFound", () => notice(frame("Not found"), "There is no campaign under that id.", 404, `${base}/campaigns`))))
  )

const campaignProgress = (kit: Kit) =>
  kit.view(({ frame }) =>
    withCampaigns((t) => frame(t), (campaigns) =>
      Effect.gen(function*() {
        const { id } = yield* HttpRouter.schemaPathParams(IdParam).pipe(Effect.orDie)
        const status = yield* campaigns.status(id)
        return HttpServerResponse.unsafeJson(
          { state: status.state, total: status.total, sent: status.sent, failed: status.failed, remaining: status.remaining + status.reserved },
          { headers: securityHeaders }
        )
      }).pipe(Effect.catchTag("CampaignNotFound", () => Effect.succeed(HttpServerResponse.unsafeJson({ status: "not_found" }, { status: 404 })))))
  )

const campaignAction = (kit: Kit, operation: "pause" | "resume") =>
  kit.action(({ base, session }) =>
    Effect.gen(function*() {
      const { id } = yield* HttpRouter.schemaPathParams(IdParam).pipe(Effect.orDie)
      const href = `${base}/campaigns/${encodeURIComponent(id)}`
      const campaigns = yield* Effect.serviceOption(Campaigns)
      if (Option.isNone(campaigns)) return HttpServerResponse.redirect(href, { status: 303, headers: securityHeaders })
      const done = yield* campaigns.value[operation](id).pipe(
        Effect.as(operation === "pause" ? "paused" : "resumed"),
        Effect.catchTags({ CampaignStateError: () => Effect.succeed("refused"), CampaignNotFound: () => Effect.succeed("refused") })
      )
      yield* Effect.logInfo(`console: campaign ${operation}`).pipe(Effect.annotateLogs({ operator: session.operator, campaignId: id, done }))
      return HttpServerResponse.redirect(`${href}?done=${done}`, { status: 303, headers: securityHeaders })
    })
  )

/** Every page and action of the console under the kit's prefix. */
export const consolePages = (kit: Kit) => {
  const at = (path: string) => `${kit.base}${path}` as `/${string}`
  return HttpRouter.empty.pipe(
    HttpRouter.get(at(""), overview(kit)),
    HttpRouter.get(at("/orders"), orderList(kit)),
    HttpRouter.get(at("/orders/:key"), orderPage(kit)),
    HttpRouter.post(at("/orders/:key/retry"), retryOrder(kit)),
    HttpRouter.post(at("/orders/:key/send-again"), sendAgain(kit)),
    HttpRouter.get(at("/alerts"), alertList(kit)),
    HttpRouter.post(at("/alerts/:id/resolve"), resolveAlert(kit)),
    HttpRouter.get(at("/campaigns"), campaignList(kit)),
    HttpRouter.get(at("/campaigns/:id"), campaignPage(kit)),
    HttpRouter.get(at("/campaigns/:id/progress"), campaignProgress(kit)),
    HttpRouter.post(at("/campaigns/:id/pause"), campaignAction(kit, "pause")),
    HttpRouter.post(at("/campaigns/:id/resume"), campaignAction(kit, "resume"))
  )
}
