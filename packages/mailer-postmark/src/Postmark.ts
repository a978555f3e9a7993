/**
 * The Postmark mailer: `make` builds it, `layer(options)` and `layerConfig(config?)`
 * provide it as hookgate's `Mailer` (both need an `HttpClient`).
 */
export { layer, layerConfig, make, MAX_BATCH_SIZE } from "./mailer.js"
export * from "./options.js"
