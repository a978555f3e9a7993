/**
 * @hookgate/cloudflare: the Workers adapter. One namespace:
 * `Cloudflare.makeWorker({ layer })` answers `{ fetch, scheduled, queue }` for
 * `export default`; bindings and secrets become layers.
 */
export * as Cloudflare from "./Cloudflare.js"
