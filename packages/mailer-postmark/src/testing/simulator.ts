import type { AcceptedEmail, PostmarkErrorReply, PostmarkFault, PostmarkTestServerOptions, RecordedRequest } from "./types.js"
import { ErrorCodes, type MessageFields, validateMessage, type ValidationContext } from "./validate.js"

/** What the HTTP layer does with a request: answer it, or close the connection without a word. */
export type Reply =
  | { readonly _tag: "Answer"; readonly status: number; readonly body: string }
  | { readonly _tag: "Drop" }

export interface IncomingRequest {
  readonly method: string
  readonly path: string
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
}

/** The token Postmark answers as a send would, delivering nothing (https://postmarkapp.com/developer/api/overview). */
export const TEST_TOKEN = "POSTMARK_API_TEST"

/** Postmark accepts up to 500 messages per `POST /email/batch`. */
export const MAX_BATCH_MESSAGES = 500

const json = (status: number, body: unknown): Reply => ({ _tag: "Answer", status, body: JSON.stringify(body) })
const errorReply = (error: PostmarkErrorReply) => json(error.status, { ErrorCode: error.errorCode, Message: error.message })

type Result = { readonly ErrorCode: number; readonly Message: string } & Record<string, unknown>

/**
 * The part of Postmark's Email API hookgate uses, in memory, as its API reference
 * describes it: `X-Postmark-Server-Token`, JSON in and out, `POST /email` and
 * `POST /email/batch` (up to 500 messages, answered 200 with one result per
 * message, in order), `{ ErrorCode, Message }` errors, and scripted faults.
 */
export class PostmarkSimulator {
  readonly serverToken: string
  readonly emails: Array<AcceptedEmail> = []
  readonly requests: Array<RecordedRequest> = []
  readonly faults: Array<PostmarkFault> = []
  private readonly context: ValidationContext
  private readonly timers = new Set<{ timer: ReturnType<typeof setTimeout>; resolve: () => void }>()

  constructor(options: PostmarkTestServerOptions = {}) {
    this.serverToken = options.serverToken ?? "postmark-test-server-token"
    this.context = {
      senderDomains: options.senderDomains,
      inactive: new Set((options.inactiveRecipients ?? []).map((a) => a.toLowerCase()))
    }
  }

  reset(): void {
    this.emails.length = 0
    this.requests.length = 0
    this.faults.length = 0
  }

  cancelDelays(): void {
    for (const pending of this.timers) {
      clearTimeout(pending.timer)
      pending.resolve()
    }
    this.timers.clear()
  }

  async handle(request: IncomingRequest): Promise<Reply> {
    const receivedAt = Date.now()
    const reply = await this.answer(request)
    this.requests.push({
      method: request.method,
      path: request.path,
      userAgent: request.headers["user-agent"],
      status: reply._tag === "Answer" ? reply.status : "dropped",
      errorCodes: reply._tag === "Answer" ? errorCodesOf(reply.body) : [],
      receivedAt
    })
    return reply
  }

  private async answer(request: IncomingRequest): Promise<Reply> {
    const path = request.path
    if (path !== "/email" && path !== "/email/batch") {
      return json(404, { ErrorCode: 0, Message: "The requested resource does not exist." })
    }
    const token = request.headers["x-postmark-server-token"]
    if (token === undefined || token === "") {
      return errorReply({ status: 401, errorCode: ErrorCodes.badToken, message: "No Server API token was supplied in the HTTP headers." })
    }
    // POSTMARK_API_TEST validates and answers as a send would, delivering nothing (the reference's test token).
    const testOnly = token === TEST_TOKEN
    // The header's value is case insensitive, as the reference says of the name and the value.
    if (!testOnly && token.toLowerCase() !== this.serverToken.toLowerCase()) {
      return errorReply({ status: 401, errorCode: ErrorCodes.badToken, message: "The Server API token you provided is invalid." })
    }
    if (request.method !== "POST") return json(405, { ErrorCode: 0, Message: "Method not allowed." })
    if (!(request.headers["content-type"] ?? "").toLowerCase().startsWith("application/json")) {
      return errorReply({ status: 422, errorCode: ErrorCodes.jsonRequired, message: "JSON is required: send Content-Type: application/json." })
    }
    let body: unknown
    try {
      body = JSON.parse(request.body)
    } catch {
      return errorReply({ status: 422, errorCode: ErrorCodes.invalidJson, message: "The request body is not valid JSON." })
    }

    const fault = this.faults.shift()
    if (fault?._tag === "Delay") await this.sleep(fault.millis)
    if (fault?._tag === "Fail") return errorReply(fault.error)
    if (fault?._tag === "Drop") return { _tag: "Drop" }

    const reply = path === "/email" ? this.single(body, testOnly) : this.batch(body, testOnly)
    return fault?._tag === "AcceptThenDrop" ? { _tag: "Drop" } : reply
  }

  private single(body: unknown, testOnly: boolean): Reply {
    const result = this.one(body, "/email", testOnly)
    return result.ErrorCode === 0 ? json(200, result) : json(422, { ErrorCode: result.ErrorCode, Message: result.Message })
  }

  private batch(body: unknown, testOnly: boolean): Reply {
    if (!Array.isArray(body)) {
      return errorReply({ status: 422, errorCode: ErrorCodes.incompatibleJson, message: "A batch is a JSON array of messages." })
    }
    if (body.length > MAX_BATCH_MESSAGES) {
      return errorReply({
        status: 422,
        errorCode: ErrorCodes.tooManyBatchMessages,
        message: `Too many batch messages: at most ${MAX_BATCH_MESSAGES} per request, got ${body.length}.`
      })
    }
    // 200 even when messages fail: each has its own ErrorCode, in the order sent.
    return json(200, body.map((message) => this.one(message, "/email/batch", testOnly)))
  }

  private one(body: unknown, endpoint: AcceptedEmail["endpoint"], testOnly: boolean): Result {
    const valid = validateMessage(body, this.context)
    if (!valid.ok) return { ErrorCode: valid.error.errorCode, Message: valid.error.message }
    const email = this.accept(valid.value, endpoint, testOnly)
    return {
      To: email.to,
      SubmittedAt: new Date(email.acceptedAt).toISOString(),
      MessageID: email.id,
      ErrorCode: 0,
      Message: "OK"
    }
  }

  private accept(message: MessageFields, endpoint: AcceptedEmail["endpoint"], testOnly: boolean): AcceptedEmail {
    const email: AcceptedEmail = {
      id: crypto.randomUUID(),
      from: message.From,
      to: message.To,
      subject: message.Subject,
      textBody: message.TextBody,
      htmlBody: message.HtmlBody,
      replyTo: message.ReplyTo,
      headers: message.Headers,
      messageStream: message.MessageStream,
      endpoint,
      acceptedAt: Date.now()
    }
    if (!testOnly) this.emails.push(email)
    return email
  }

  private sleep(millis: number): Promise<void> {
    return new Promise((resolve) => {
      const pending = {
        timer: setTimeout(() => {
          this.timers.delete(pending)
          resolve()
        }, millis),
        resolve
      }
      this.timers.add(pending)
    })
  }
}

const errorCodesOf = (body: string): ReadonlyArray<number> => {
  try {
    const parsed = JSON.parse(body) as unknown
    const results = Array.isArray(parsed) ? parsed : [parsed]
    return results.map((r) => typeof r?.ErrorCode === "number" ? r.ErrorCode : 0)
  } catch {
    return []
  }
}
