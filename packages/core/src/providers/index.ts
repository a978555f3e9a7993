/**
 * @hookgate/core/providers: the provider plugin kit. The `WebhookProvider`
 * contract and the `Providers` registry, the webhook request and verified event,
 * their errors, and what every plugin needs besides its own signature format:
 * secret lists with rotation, keys imported once, the constant-time key loop,
 * JSON and schema decoding, the timestamp window.
 */
export * from "./webhook.js"
export * from "./errors.js"
export * from "./providers.js"
export * from "./hmac.js"
export * from "./payload.js"
export * from "./secrets.js"
export * from "./timestamp.js"
export * from "./signatures.js"
