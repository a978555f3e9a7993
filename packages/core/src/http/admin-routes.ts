import * as HttpRouter from "@effect/platform/HttpRouter"
import { type AdminToken, adminTokenGuard } from "./admin-token.js"
import { campaignRoutes, type CampaignRoutesOptions } from "./campaign-routes.js"
import { orderRoutes as orderRoutesOnly } from "./order-routes.js"
import { reconcileRoutes } from "./reconcile-routes.js"

const orderRoutes = HttpRouter.concat(orderRoutesOnly, reconcileRoutes)

/** Options of `adminRoutes`. */
export interface AdminRoutesOptions {
  /**
   * The bearer token every admin request must carry (`Authorization: Bearer <token>`):
   * `Redacted`, or a `Config` read per request (`Config.redacted("HOOKGATE_ADMIN_TOKEN")`
   * in a Worker, whose secrets exist only per invocation).
   */
  readonly token: AdminToken
  /** Also mount the campaign routes (they need the `Campaigns` service); `{}` for the defaults. */
  readonly campaigns?: CampaignRoutesOptions
}

/**
 * The admin API, runtime-neutral, every route behind one token guard (401
 * `{ "status": "unauthorized" }` without it):
 *
 * - orders: `GET /admin/stats`, `GET /admin/orders?status=&limit=`,
 *   `GET /admin/orders/:key`, `POST /admin/orders/:key/retry` (`{ "confirm": true }`),
 *   `GET /admin/alerts`, `POST /admin/sweep`, `POST /admin/reconcile` (`{ "since": "72h", "dryRun": false }`, both optional);
 * - with `campaigns`: `POST|GET /admin/campaigns`, `GET /admin/campaigns/:id`,
 *   `POST /admin/campaigns/:id/start|pause|resume` (the prefix is configurable).
 *
 * The Node gateway mounts it when `HOOKGATE_ADMIN_TOKEN` is set; a Worker passes
 * it to `makeWorker({ router })`, which serves it beside the webhook routes.
 */
export function adminRoutes(
  options: AdminRoutesOptions & { readonly campaigns: CampaignRoutesOptions }
): ReturnType<typeof ordersAndCampaigns>
export function adminRoutes(options: AdminRoutesOptions): ReturnType<typeof ordersOnly>
export function adminRoutes(options: AdminRoutesOptions) {
  return options.campaigns === undefined ? ordersOnly(options.token) : ordersAndCampaigns(options.token, options.campaigns)
}

const ordersOnly = (token: AdminToken) => HttpRouter.use(orderRoutes, adminTokenGuard(token))

const ordersAndCampaigns = (token: AdminToken, campaigns: CampaignRoutesOptions) =>
  HttpRouter.use(HttpRouter.concat(orderRoutes, campaignRoutes(campaigns)), adminTokenGuard(token))
