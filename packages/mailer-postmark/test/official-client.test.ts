import { orderIdempotencyKey } from "@hookgate/core/mail"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Errors, ServerClient } from "postmark"
import { IDEMPOTENCY_HEADER } from "../src/Postmark.js"
import { type PostmarkTestServerShape, startPostmarkTestServer } from "../src/testing/index.js"
import { email, mailerFor } from "./support.js"

/**
 * The official `postmark` client, pointed at the stand-in (`requestHost`, plain
 * HTTP): what it sends the stand-in accepts, and what the stand-in answers it reads
 * as Postmark's answers (its response types, its error classes by status and ErrorCode).
 */
let server: PostmarkTestServerShape
beforeAll(async () => {
  server = await startPostmarkTestServer({ inactiveRecipients: ["bounced@example.com"] })
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const client = (token = server.serverToken) => new ServerClient(token, { requestHost: server.requestHost, useHttps: false, timeout: 5 })

const rejection = async (promise: Promise<unknown>) => {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error("expected the client to throw")
}

describe("the stand-in speaks Postmark's protocol to the official client", () => {
  it("sendEmail: the client's request is accepted and its answer is a MessageSendingResponse", async () => {
    const answer = await client().sendEmail({
      From: "Shop <shop@example.com>",
      To: "buyer@example.com",
      Subject: "Your order",
      TextBody: "Thank you.",
      HtmlBody: "<p>Thank you.</p>",
      Headers: [{ Name: "X-Order", Value: "o1" }],
      MessageStream: "outbound"
    })
    expect(answer).toMatchObject({ ErrorCode: 0, Message: "OK", To: "buyer@example.com", MessageID: server.emails[0]!.id })
    expect(Number.isNaN(Date.parse(answer.SubmittedAt))).toBe(false)
    expect(server.requests[0]!.userAgent).toMatch(/^Postmark\.JS/)
  })

  it.live("the client and hookgate's mailer send the same email as the same fields", () =>
    Effect.gen(function*() {
      const key = yield* orderIdempotencyKey("test:o1")
      const mailer = yield* mailerFor(server)
      yield* mailer.send(email({ html: "<p>Thank you.</p>", replyTo: "help@example.com" }), { idempotencyKey: key })
      yield* Effect.promise(() =>
        client().sendEmail({
          From: "Shop <shop@example.com>",
          To: "buyer@example.com",
          Subject: "Your order",
          TextBody: "Thank you.",
          HtmlBody: "<p>Thank you.</p>",
          ReplyTo: "help@example.com",
          Headers: [{ Name: IDEMPOTENCY_HEADER, Value: key }]
        })
      )
      const [ours, theirs] = server.emails.map(({ acceptedAt: _a, id: _i, ...fields }) => fields)
      expect(ours).toEqual(theirs)
    }))

  it("sendEmailBatch: one result per message, in order, failures among them", async () => {
    const answers = await client().sendEmailBatch([
      { From: "shop@example.com", To: "r1@example.com", Subject: "1", TextBody: "one" },
      { From: "shop@example.com", To: "bounced@example.com", Subject: "2", TextBody: "two" },
      { From: "shop@example.com", To: "r3@example.com", Subject: "3", TextBody: "three" }
    ])
    expect(answers.map((a) => a.ErrorCode)).toEqual([0, 406, 0])
    expect([answers[0]!.MessageID, answers[2]!.MessageID]).toEqual(server.emails.map((e) => e.id))
  })

  it("POSTMARK_API_TEST: validated and answered as a send, nothing delivered", async () => {
    const answer = await client("POSTMARK_API_TEST").sendEmail({ From: "shop@example.com", To: "buyer@example.com", Subject: "s", TextBody: "x" })
    expect(answer).toMatchObject({ ErrorCode: 0, Message: "OK" })
    const invalid = await rejection(client("POSTMARK_API_TEST").sendEmail({ From: "shop@example.com", To: "nobody", Subject: "s", TextBody: "x" }))
    expect(invalid).toBeInstanceOf(Errors.InvalidEmailRequestError)
    expect(server.emails).toEqual([])
  })

  it("a wrong token: the client's InvalidAPIKeyError, status 401, code 10", async () => {
    const error = await rejection(client("wrong-token").sendEmail({ From: "shop@example.com", To: "a@example.com", Subject: "s", TextBody: "x" }))
    expect(error).toBeInstanceOf(Errors.InvalidAPIKeyError)
    expect(error).toMatchObject({ statusCode: 401, code: 10 })
  })

  it("an inactive recipient: the client's InactiveRecipientsError, with the address it parses from the message", async () => {
    const error = await rejection(client().sendEmail({ From: "shop@example.com", To: "bounced@example.com", Subject: "s", TextBody: "x" }))
    expect(error).toBeInstanceOf(Errors.InactiveRecipientsError)
    expect(error).toMatchObject({ statusCode: 422, code: 406, recipients: ["bounced@example.com"] })
  })

  it("an invalid email request: the client's InvalidEmailRequestError (300)", async () => {
    const error = await rejection(client().sendEmail({ From: "shop@example.com", To: "buyer@example.com", Subject: "s" }))
    expect(error).toBeInstanceOf(Errors.InvalidEmailRequestError)
    expect(error).toMatchObject({ statusCode: 422, code: 300 })
  })

  it("429 and 500: the client's RateLimitExceededError and InternalServerError", async () => {
    server.failNext(1, { status: 429, errorCode: 429, message: "Rate limit exceeded." })
    server.failNext(1, { status: 500, errorCode: 0, message: "Internal server error." })
    const message = { From: "shop@example.com", To: "buyer@example.com", Subject: "s", TextBody: "x" }
    expect(await rejection(client().sendEmail(message))).toBeInstanceOf(Errors.RateLimitExceededError)
    expect(await rejection(client().sendEmail(message))).toBeInstanceOf(Errors.InternalServerError)
  })
})
