import { startResendTestServer } from "@hookgate/mailer-resend/testing"

/**
 * The HTTP suite's stand-in for Resend (`@hookgate/mailer-resend/testing`), in a
 * process of its own so that neither the load generator nor the servers under
 * test share its event loop. Started with `fork`: it sends `{ url, apiKey }`,
 * then answers each `{ count: [substrings] }` with how many accepted emails
 * carry an idempotency key containing each, and how many requests it refused.
 */

export type ResendChildMessage =
  | { readonly url: string; readonly apiKey: string }
  | { readonly counts: ReadonlyArray<number>; readonly refused: number }

const server = await startResendTestServer()
process.send!({ url: server.url, apiKey: server.apiKey } satisfies ResendChildMessage)
process.on("message", (message: { readonly count: ReadonlyArray<string> }) => {
  const emails = server.emails
  process.send!({
    counts: message.count.map((part) => emails.filter((e) => e.idempotencyKey?.includes(part)).length),
    refused: server.requests.filter((r) => r.status !== 200).length
  } satisfies ResendChildMessage)
})
process.once("disconnect", () => void server.close().then(() => process.exit(0)))
