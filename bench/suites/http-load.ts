import { checkoutSessionEvent } from "@hookgate/provider-stripe/testing"
import autocannon from "autocannon"
import { createHmac } from "node:crypto"

/**
 * One round of load from autocannon: `connections` keep-alive connections POST
 * webhooks for `seconds`, each a distinct paid Checkout Session (its own event
 * id, session id and buyer) signed afresh as Stripe signs (`t=…,v1=…`, HMAC-SHA256
 * of `${t}.${body}`). The keys of the orders answered 2xx are kept, so the caller
 * can check each one is stored as sent.
 */

export interface LoadOptions {
  /** The server's base URL; webhooks go to `/webhooks/stripe`. */
  readonly url: string
  readonly stripeSecret: string
  /** Makes every order key of the round unique across rounds and servers. */
  readonly prefix: string
  readonly seconds: number
  readonly connections: number
  /** Stop after this many requests instead of after `seconds`. */
  readonly amount?: number
  /** A request unanswered this long is given up (autocannon's default: 10 s, which would hide a longer tail). */
  readonly timeoutSeconds?: number
  /** Answers slower than this are counted in `slow` (default 5000 ms). */
  readonly slowMs?: number
}

export interface RoundResult {
  /** Order keys (`stripe:<session id>`) answered 2xx. */
  readonly okKeys: ReadonlyArray<string>
  readonly seconds: number
  readonly webhooksPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly maxMs: number
  /**
   * Requests not answered within `slowMs`: slow answers, and requests still unanswered when the
   * round ended that had waited that long (autocannon drops those from its latencies).
   */
  readonly slow: number
  /** Requests still unanswered when the round ended (cut with their connection). */
  readonly unanswered: number
  /** Answers 503 with `Retry-After` (the gateway's "busy"). */
  readonly busy: number
  readonly non2xx: number
  /** Connection errors, timeouts included. */
  readonly errors: number
}

interface Context {
  key?: string
  sentAt?: number
  /** The request last sent on this connection was answered. */
  answered?: boolean
}

export const signedStripeWebhook = (secret: string, prefix: string, n: number) => {
  const session = `cs_${prefix}${n}`
  const body = checkoutSessionEvent(`evt_${prefix}${n}`, "checkout.session.completed", {
    id: session,
    email: `buyer${n}@example.com`,
    amountTotal: 1900,
    currency: "usd",
    metadata: { product_id: "course-101" }
  })
  const timestamp = Math.floor(Date.now() / 1000)
  const v1 = createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex")
  return { key: `stripe:${session}`, body, signature: `t=${timestamp},v1=${v1}` }
}

export const driveRound = async (options: LoadOptions): Promise<RoundResult> => {
  let n = 0
  let slow = 0
  let busy = 0
  const slowMs = options.slowMs ?? 5000
  const okKeys: Array<string> = []
  // The requests in flight (autocannon gives each request of a connection a fresh context).
  const contexts = new Set<Context>()
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    ...(options.amount === undefined ? {} : { amount: options.amount }),
    ...(options.timeoutSeconds === undefined ? {} : { timeout: options.timeoutSeconds }),
    requests: [{
      method: "POST",
      path: "/webhooks/stripe",
      setupRequest: (request, context: Context) => {
        const webhook = signedStripeWebhook(options.stripeSecret, options.prefix, n++)
        context.key = webhook.key
        context.sentAt = performance.now()
        context.answered = false
        contexts.add(context)
        return {
          ...request,
          body: webhook.body,
          headers: { ...request.headers, "content-type": "application/json; charset=utf-8", "stripe-signature": webhook.signature }
        }
      },
      onResponse: (status, _body, context: Context) => {
        context.answered = true
        contexts.delete(context)
        if (status >= 200 && status < 300) okKeys.push(context.key!)
        else if (status === 503) busy++
        if (performance.now() - context.sentAt! > slowMs) slow++
      }
    }]
  })
  const endedAt = performance.now()
  const waiting = [...contexts].filter((context) => !context.answered)
  const slowWaiting = waiting.filter((context) => endedAt - context.sentAt! > slowMs).length
  return {
    okKeys,
    seconds: result.duration,
    webhooksPerSecond: okKeys.length / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    slow: slow + slowWaiting,
    unanswered: waiting.length,
    busy,
    non2xx: result.non2xx,
    errors: result.errors
  }
}
