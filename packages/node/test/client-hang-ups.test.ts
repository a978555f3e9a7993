import { createServer, request, type Server } from "node:http"
import { type AddressInfo, connect, type Socket } from "node:net"
import { describe, expect, it } from "vitest"
import { admin, deliver, type Signed, signStripe, stripeBody } from "./support/webhooks.js"
import { baseEnv, resendEnv, startGateway, tempDir } from "./support/gateway-process.js"

/**
 * Clients that hang up in the middle of a webhook: while it is being sent (the mail server
 * has it), while its body is on the way, just after its headers, or under load, with every
 * connection cut at once as a load generator ends its round while webhooks are pipelined on
 * each (closing-response.ts: before it closed a response queued behind another, that phase
 * left every slot held). Each must end on the server and give back its admission slot
 * (HOOKGATE_WEBHOOK_CONCURRENCY), however far it got: the webhooks that come after are
 * admitted as before, not answered 503 busy. (A client that hangs up as it is answered is
 * closing-response.test.ts's.)
 */

/** The orders of the load phase: `cs_test_load-…`. */
const LOAD = "cs_test_load-"

/**
 * A Resend stand-in that answers only when told: the sends it holds are in flight meanwhile.
 * Sends of the load phase's orders are answered at once, also while it holds: those of webhooks
 * cut mid-way still go out after their clients are gone, and held they would hold their slots.
 */
const startHeldMailServer = async () => {
  const held: Array<() => void> = []
  const keys: Array<string> = []
  let arrived = 0
  let holding = true
  const server: Server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      arrived++
      const key = String(req.headers["idempotency-key"])
      keys.push(key)
      const answer = () => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ id: `email-${arrived}-${Math.random()}` }))
      }
      if (holding && !key.includes(LOAD)) held.push(answer)
      else answer()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived: () => arrived,
    /** Whether a send of the order whose key contains `part` has arrived. */
    has: (part: string) => keys.filter((key) => key.includes(part)).length,
    /** Sends arriving from now on are held until `answer`. */
    hold: () => void (holding = true),
    /** Answers the held sends, and every later one at once. */
    answer: () => {
      holding = false
      for (const send of held.splice(0)) send()
    },
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

/** Starts a POST with `headers` and writes `written` of its body; the function returned hangs up. */
const hungUp = (url: string, path: string, headers: Record<string, string>, written: string) => {
  const { hostname, port } = new URL(url)
  const outgoing = request({ host: hostname, port, path, method: "POST", headers })
  outgoing.on("error", () => undefined)
  outgoing.flushHeaders()
  if (written.length > 0) outgoing.write(written)
  return () => void outgoing.destroy()
}

/** A signed webhook whose client hangs up when told, its whole body sent. */
const hangingUpWebhook = (url: string, signed: Signed) =>
  hungUp(url, `/webhooks/${signed.provider}`, { ...signed.headers, "content-length": String(Buffer.byteLength(signed.body)) }, signed.body)

const waitFor = async (check: () => boolean | Promise<boolean>, what: string) => {
  for (let i = 0; i < 3000; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/**
 * Webhooks from `connections` raw keep-alive connections, `depth` in flight on each (pipelined:
 * sent before the earlier ones are answered, one more sent per answer), until `answers` have
 * come back; then every connection is cut at once, mid-webhook (as a load generator ends a round).
 */
const pipelinedLoadThenHangUp = async (url: string, connections: number, depth: number, answers: number) => {
  const { hostname, port } = new URL(url)
  let n = 0
  let answered = 0
  let hangUp = () => {}
  const enough = new Promise<void>((resolve) => (hangUp = resolve))
  const send = async (socket: Socket) => {
    const signed = await signStripe(stripeBody(`load-${n++}`))
    const headers = { ...signed.headers, host: `${hostname}:${port}`, "content-length": String(Buffer.byteLength(signed.body)) }
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("")
    if (!socket.destroyed) socket.write(`POST /webhooks/stripe HTTP/1.1\r\n${head}\r\n${signed.body}`)
  }
  const sockets = await Promise.all(Array.from({ length: connections }, () =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(socket))
      socket.once("error", reject)
    })))
  for (const socket of sockets) {
    socket.on("error", () => undefined)
    // Counts the status lines of the answers (one may be split across two chunks).
    let carry = ""
    socket.on("data", (chunk: Buffer) => {
      const parts = (carry + chunk.toString("latin1")).split("HTTP/1.1 ")
      carry = parts.at(-1)!.slice(-8)
      for (let i = 1; i < parts.length; i++) {
        if (++answered >= answers) hangUp()
        void send(socket)
      }
    })
    for (let i = 0; i < depth; i++) await send(socket)
  }
  await enough
  for (const socket of sockets) socket.destroy()
}

const SLOTS = 4

describe("clients that hang up mid-webhook", () => {
  it("give back their admission slot however far their webhook got: later webhooks are still admitted", async () => {
    const mail = await startHeldMailServer()
    const gateway = await startGateway({
      ...baseEnv(tempDir()),
      ...resendEnv({ apiKey: "re_test_key", url: mail.url }),
      HOOKGATE_SWEEP_EVERY: "1 hour",
      HOOKGATE_WEBHOOK_CONCURRENCY: String(SLOTS),
      // Long enough for a cut webhook still at work to finish on a slow machine.
      HOOKGATE_WEBHOOK_QUEUE_TIMEOUT: "30s"
    })
    const sent = async (signed: Signed) =>
      (await admin(gateway.url, `/admin/orders/${encodeURIComponent(signed.orderKey)}`)).body.order?.status === "sent"
    try {
      // Clients that hang up while their email is being sent, mid-body, and just after their headers.
      mail.hold()
      const sending = await signStripe(stripeBody("sending"))
      const hangUpSending = hangingUpWebhook(gateway.url, sending)
      await waitFor(() => mail.has("cs_test_sending") === 1, "the send to reach the mail server (a webhook refused busy never does)")
      hangUpSending()
      const partial = await signStripe(stripeBody("mid-body"))
      const length = String(Buffer.byteLength(partial.body))
      const early = [
        hungUp(gateway.url, "/webhooks/stripe", { ...partial.headers, "content-length": length }, partial.body.slice(0, 20)),
        hungUp(gateway.url, "/webhooks/stripe", { ...partial.headers, "content-length": length }, "")
      ]
      await new Promise((resolve) => setTimeout(resolve, 200))
      for (const hangUp of early) hangUp()
      mail.answer()
      await waitFor(() => sent(sending), "its order to be sent")

      // Under load, every connection cut with webhooks in flight on it, twice: on each, one is
      // answered or worked on, the ones pipelined behind it wait for their turn (and for a slot).
      for (let round = 0; round < 2; round++) await pipelinedLoadThenHangUp(gateway.url, 4 * SLOTS, 3, 8 * SLOTS)

      // Every slot is free again (once the cut webhooks still at work are done): as many webhooks
      // as slots are in flight at once (held at the mail server), none refused; then they are
      // answered and sent.
      mail.hold()
      const next = await Promise.all(Array.from({ length: SLOTS }, (_, i) => signStripe(stripeBody(`after-${i}`))))
      let answered = 0
      const answers = next.map((signed) => deliver(gateway.url, signed).finally(() => answered++))
      await waitFor(() => mail.has("cs_test_after-") === SLOTS || answered > 0, "every slot to be taken, or a webhook refused")
      mail.answer()
      const statuses = (await Promise.all(answers)).map((a) => a.status)
      expect(statuses, gateway.output().split("\n").filter((l) => l.includes("busy")).join("\n")).toEqual(next.map(() => 200))
    } finally {
      await gateway.stop()
      await mail.close()
    }
  }, 180_000)
})
