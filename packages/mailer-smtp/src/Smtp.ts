/**
 * The SMTP mailer: `make` builds it (scoped: the pool closes with the scope),
 * `layer(options)` and `layerConfig(config?)` provide it as hookgate's `Mailer`.
 */
export { layer, layerConfig, make } from "./mailer.js"
export * from "./options.js"
