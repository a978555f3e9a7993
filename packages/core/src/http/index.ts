/**
 * @hookgate/core/http: the runtime-neutral HTTP surface. The contract table
 * (outcomes and errors to statuses), the webhook routes, the admin routes
 * (orders and campaigns, behind one token guard), and `toWebHandler` for any
 * runtime with Web `Request`/`Response`.
 */
export * from "./contract.js"
export * from "./errors.js"
export { answerWebhookRequest, DEFAULT_MAX_BODY_BYTES, webhookRoutes, type WebhookRoutesOptions } from "./webhook-routes.js"
export { readinessRoute } from "./readiness-route.js"
export { toWebHandler } from "./web-handler.js"
export { adminRoutes, type AdminRoutesOptions } from "./admin-routes.js"
export { type AdminToken, adminTokenGuard, resolveAdminToken, tokenMatches } from "./admin-token.js"
export type { CampaignRoutesOptions } from "./campaign-routes.js"
