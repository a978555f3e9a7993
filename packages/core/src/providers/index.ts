/**
 * @hookgate/core/providers: the provider plugin kit. A plugin is a header
 * parser, a signed-bytes function, an envelope schema and a fulfilment
 * (`ProviderKit.make`, `fulfilOn`); the kit owns the order of the checks, the
 * secrets (lists with rotation, keys imported once), the constant-time key
 * loop, JSON and schema decoding and the timestamp window. Also the
 * `WebhookProvider` contract, the `Providers` registry, `mountWhenSet`, the
 * webhook request and verified event, and their errors.
 */
export * from "./webhook.js"
export * from "./errors.js"
export * from "./providers.js"
export * from "./kit.js"
/** `ProviderKit.make(spec)`: a `WebhookProvider` from its parts. */
export * as ProviderKit from "./ProviderKit.js"
export * from "./fulfil-on.js"
export { mountWhenSet } from "./mount.js"
export * from "./reconcile.js"
export * from "./hmac.js"
export * from "./bytes.js"
export * from "./payload.js"
export * from "./secrets.js"
export * from "./timestamp.js"
export * from "./signatures.js"
export * from "./listing-page.js"
export * from "./register-with-api.js"
