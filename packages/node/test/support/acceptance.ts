import { ADMIN_TOKEN } from "./gateway-process.js"
import { admin } from "./webhooks.js"

/** What the acceptance tests over real processes share (webhook → order → email, replays, a crash mid-send). */

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const waitFor = async <A>(read: () => Promise<A> | A, done: (value: A) => boolean, what: string, timeoutMs = 20_000) => {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`)
    await sleep(25)
  }
}

export const orderOf = async (url: string, key: string) =>
  (await admin(url, `/admin/orders/${encodeURIComponent(key)}`, {}, ADMIN_TOKEN)).body.order as Record<string, any> | undefined

/** Every one of `keys` is stored and leased: its send has begun (or waits for the mailer). */
export const allLeased = async (url: string, keys: ReadonlyArray<string>) => {
  const orders = await Promise.all(keys.map((key) => orderOf(url, key)))
  return orders.every((order) => order !== undefined && order.status === "pending" && order.leaseToken !== null)
}
