/**
 * What every provider plugin needs besides its own signature format: secret
 * lists from Config with rotation, keys imported once, JSON and schema
 * decoding into `MalformedPayload`, and the two-sided timestamp window.
 */
export * from "./payload.js"
export * from "./secrets.js"
export * from "./timestamp.js"
export * from "./signatures.js"
