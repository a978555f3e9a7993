/**
 * @hookgate/core/http: the runtime-neutral HTTP surface. The contract table
 * (outcomes and errors to statuses), the webhook routes, the campaign admin
 * routes, and `toWebHandler` for any runtime with Web `Request`/`Response`.
 */
export * from "./contract.js"
export * from "./errors.js"
export { readBodyLimited } from "./read-body.js"
export { DEFAULT_MAX_BODY_BYTES, handleWebhook, webhookRoutes, type WebhookRoutesOptions } from "./webhook-routes.js"
export { toWebHandler } from "./web-handler.js"
export { campaignRoutes, type CampaignRoutesOptions } from "./campaign-routes.js"
