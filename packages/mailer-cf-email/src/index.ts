/**
 * @hookgate/mailer-cf-email: hookgate's `Mailer` on a Cloudflare Workers
 * `send_email` binding, in its Email Sending and Email Routing forms. One
 * namespace: `CloudflareEmail.layer(options)`, `CloudflareEmail.make(options)`.
 */
export * as CloudflareEmail from "./CloudflareEmail.js"
