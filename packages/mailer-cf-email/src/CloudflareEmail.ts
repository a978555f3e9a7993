/**
 * The Cloudflare Email mailer: `make` builds it on a `send_email` binding,
 * `layer(options)` provides it as hookgate's `Mailer`. There is no
 * `layerConfig`: a binding comes from the Worker's `env`, not from Config.
 */
export { layer, make } from "./mailer.js"
export * from "./options.js"
export type * from "./binding.js"
