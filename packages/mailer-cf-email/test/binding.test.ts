import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { IDEMPOTENCY_HEADER } from "../src/CloudflareEmail.js"
import { startWorker, type TestWorker } from "./support.js"

/** Sends through the mailer inside the Worker, on Miniflare's real `send_email` binding. */
let worker: TestWorker
beforeAll(async () => {
  worker = await startWorker()
})
afterAll(() => worker?.dispose())

const email = {
  from: "Shop <shop@example.com>",
  to: "buyer@example.com",
  subject: "Your order ✓",
  text: "Thank you — €19.00 received.",
  html: "<p>Thank you — <b>€19.00</b> received.</p>",
  replyTo: "help@example.com",
  headers: { "X-Order": "o1" }
}

const send = (mode: string, body: unknown, idempotencyKey: string) =>
  worker.json(`/${mode}/send`, { method: "POST", body: JSON.stringify({ email: body, idempotencyKey }) })

const header = (parsed: { headers: ReadonlyArray<{ key: string; value: string }> }, name: string) =>
  parsed.headers.find((h) => h.key === name.toLowerCase())?.value

describe("Cloudflare email mailer in Miniflare", () => {
  it("Email Sending form: the binding receives from, to, subject, both bodies, replyTo and the headers", async () => {
    const before = (await worker.received()).length
    const answer = await send("sending", email, "hookgate/order/test:s1")
    expect(answer.receipt).toMatchObject({ mailer: "cloudflare-email" })
    expect(answer.receipt.messageId).toMatch(/^<.+@example\.com>$/)

    const received = (await worker.received(before + 1))[before]!
    expect(received).toEqual({
      form: "sending",
      from: "\"Shop\" <shop@example.com>",
      to: "buyer@example.com",
      subject: "Your order ✓",
      text: email.text,
      html: email.html
    })
    // Miniflare does not record a structured message's replyTo or headers: the Worker's own record does.
    const recorded = await worker.json<Array<any>>("/recorded")
    expect(recorded.at(-1)).toMatchObject({
      from: { email: "shop@example.com", name: "Shop" },
      to: "buyer@example.com",
      replyTo: "help@example.com",
      headers: { "X-Order": "o1", [IDEMPOTENCY_HEADER]: "hookgate/order/test:s1" }
    })
  })

  for (const mode of ["routing", "routing-dynamic"]) {
    it(`Email Routing form (${mode === "routing" ? "EmailMessage passed in" : "cloudflare:email imported"}): raw MIME by buildMime, as the binding received it`, async () => {
      const before = (await worker.received()).length
      const key = `hookgate/order/test:${mode}`
      const answer = await send(mode, email, key)
      expect(answer.receipt.messageId).toMatch(/^<.+@example\.com>$/)

      const received = (await worker.received(before + 1))[before]!
      if (received.form !== "routing") throw new Error("expected a raw message")
      const parsed = received.email
      expect(parsed.from).toEqual({ address: "shop@example.com", name: "Shop" })
      expect(parsed.to).toEqual([{ address: "buyer@example.com", name: "" }])
      expect(parsed.subject).toBe("Your order ✓")
      expect(parsed.text?.trim()).toBe(email.text)
      expect(parsed.html?.trim()).toBe(email.html)
      expect(parsed.replyTo).toEqual([{ address: "help@example.com", name: "" }])
      expect(header(parsed, IDEMPOTENCY_HEADER)).toBe(key)
      expect(header(parsed, "X-Order")).toBe("o1")
      expect(parsed.messageId).toMatch(/^<hookgate\.[0-9a-f]{32}@example\.com>$/)
      expect(received.raw).toContain("\r\n") // CRLF line ends, as SMTP wants

      // The Message-ID is derived from the key: a retry of the order carries the same one.
      await send(mode, email, key)
      const again = (await worker.received(before + 2))[before + 1]!
      expect(again.form === "routing" && again.email.messageId).toBe(parsed.messageId)
    })
  }

  it("a recipient the binding does not allow is Rejected, and nothing is sent", async () => {
    const before = (await worker.received()).length
    const answer = await send("routing", { ...email, to: "stranger@example.com" }, "hookgate/order/test:r1")
    expect(answer.error).toMatchObject({
      _tag: "Rejected",
      code: "E_RECIPIENT_NOT_ALLOWED",
      detail: "email to stranger@example.com not allowed"
    })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await worker.received()).toHaveLength(before)
  })

  it("a rate-limit error (a test double around the real binding) is Transient; the next call goes through", async () => {
    await worker.fetch("/script?rateLimited=1", { method: "POST" })
    const limited = await send("sending-flaky", email, "hookgate/order/test:l1")
    expect(limited.error).toMatchObject({ _tag: "Transient", detail: "E_RATE_LIMIT_EXCEEDED: rate limit exceeded" })
    const sent = await send("sending-flaky", email, "hookgate/order/test:l1")
    expect(sent.receipt).toBeDefined()
  })

  it("a header with a line break is Rejected before the binding is called", async () => {
    const calls = (await worker.json<Array<unknown>>("/recorded")).length
    for (const mode of ["sending", "routing"]) {
      const answer = await send(mode, { ...email, headers: { "X-Evil": "a\r\nBcc: everyone@example.com" } }, "k")
      expect(answer.error).toMatchObject({ _tag: "Rejected", code: "invalid_email" })
    }
    expect(await worker.json<Array<unknown>>("/recorded")).toHaveLength(calls)
  })
})
