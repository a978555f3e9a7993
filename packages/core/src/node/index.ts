/**
 * @hookgate/core/node: the parts of core that need Node (Bun and Deno serve them
 * too). Only this entry point imports `node:` modules, so a Worker bundle that
 * never imports it stays free of them.
 *
 * - `NodeHmac`: HMAC-SHA256 on node:crypto for the provider kit,
 *   `NodeHmac.layer()` under the layer that makes the providers.
 */
export * as NodeHmac from "./NodeHmac.js"
