import type { AcceptedEmail, RecordedRequest, ResendErrorReply, ResendFault, ResendTestServerOptions } from "./types.js"
import { validatePayload } from "./validate.js"

/** What the HTTP layer does with a request: answer it, or close the connection without a word. */
export type Reply =
  | {
    readonly _tag: "Answer"
    readonly status: number
    readonly headers: Readonly<Record<string, string>>
    readonly body: string
  }
  | { readonly _tag: "Drop" }

export interface IncomingRequest {
  readonly method: string
  readonly path: string
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
}

type Endpoint = "/emails" | "/emails/batch"

type KeyEntry =
  | { readonly state: "in_flight"; readonly fingerprint: string }
  | { readonly state: "done"; readonly fingerprint: string; readonly reply: Reply; readonly at: number }

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => ({
  _tag: "Answer",
  status,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body)
})

const errorReply = (error: ResendErrorReply, headers: Record<string, string> = {}) =>
  json(
    error.status,
    { statusCode: error.status, message: error.message, name: error.name },
    error.retryAfterSeconds === undefined ? headers : { ...headers, "retry-after": String(error.retryAfterSeconds) }
  )

/** JSON with sorted keys, so that one payload has one fingerprint however it was serialised. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : typeof value === "object" && value !== null
    ? `{${
      Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
        .join(",")
    }}`
    : JSON.stringify(value)

/**
 * The subset of Resend's API that hookgate uses, in memory: authentication,
 * the User-Agent rule, a fixed-window rate limit, idempotency keys, payload
 * validation, and scripted faults. Independent of the HTTP server around it.
 */
export class ResendSimulator {
  readonly apiKey: string
  readonly emails: Array<AcceptedEmail> = []
  readonly requests: Array<RecordedRequest> = []
  readonly faults: Array<ResendFault> = []
  private readonly keys = new Map<string, KeyEntry>()
  private window = { startedAt: 0, count: 0 }
  private readonly timers = new Set<{ timer: ReturnType<typeof setTimeout>; resolve: () => void }>()

  constructor(private readonly options: ResendTestServerOptions = {}) {
    this.apiKey = options.apiKey ?? "re_test_key"
  }

  reset(): void {
    this.emails.length = 0
    this.requests.length = 0
    this.faults.length = 0
    this.keys.clear()
    this.window = { startedAt: 0, count: 0 }
  }

  /** Ends every pending delay at once (the server is closing). */
  cancelDelays(): void {
    for (const pending of this.timers) {
      clearTimeout(pending.timer)
      pending.resolve()
    }
    this.timers.clear()
  }

  async handle(request: IncomingRequest): Promise<Reply> {
    const receivedAt = Date.now()
    let replayed = false
    const reply = await this.answer(request, () => {
      replayed = true
    })
    let errorName: string | undefined
    if (reply._tag === "Answer" && reply.status >= 400) {
      try {
        errorName = (JSON.parse(reply.body) as { name?: string }).name
      } catch {
        errorName = undefined
      }
    }
    this.requests.push({
      method: request.method,
      path: request.path,
      idempotencyKey: request.headers["idempotency-key"],
      userAgent: request.headers["user-agent"],
      traceparent: request.headers["traceparent"],
      status: reply._tag === "Answer" ? reply.status : "dropped",
      errorName,
      replayed,
      receivedAt
    })
    return reply
  }

  private async answer(request: IncomingRequest, markReplayed: () => void): Promise<Reply> {
    const path = request.path
    if (path !== "/emails" && path !== "/emails/batch") {
      return errorReply({ status: 404, name: "not_found", message: "The requested endpoint does not exist." })
    }
    if (request.method !== "POST") {
      return errorReply({ status: 405, name: "method_not_allowed", message: "Method is not allowed for the requested path." })
    }
    // Resend sits behind Cloudflare, which refuses a request without a User-Agent before Resend sees it.
    if (!request.headers["user-agent"]) {
      return { _tag: "Answer", status: 403, headers: { "content-type": "text/plain" }, body: "error code: 1010" }
    }
    const authorization = request.headers["authorization"] ?? ""
    if (!authorization.startsWith("Bearer ")) {
      return errorReply({
        status: 401,
        name: "missing_api_key",
        message: "Missing API key in the authorization header. Include: Authorization: Bearer YOUR_API_KEY"
      })
    }
    if (authorization.slice("Bearer ".length) !== this.apiKey) {
      return errorReply({ status: 403, name: "invalid_api_key", message: "API key is invalid" })
    }

    const limited = this.rateLimit()
    if (limited.exceeded) {
      return errorReply({
        status: 429,
        name: "rate_limit_exceeded",
        message: `Too many requests. You can only make ${limited.headers["ratelimit-limit"]} requests per window.`,
        retryAfterSeconds: Number(limited.headers["ratelimit-reset"])
      }, limited.headers)
    }
    const answer = (reply: Reply): Reply =>
      reply._tag === "Answer" ? { ...reply, headers: { ...reply.headers, ...limited.headers } } : reply

    const key = request.headers["idempotency-key"]
    if (key !== undefined && (key.length < 1 || key.length > 256)) {
      return answer(errorReply({ status: 400, name: "invalid_idempotency_key", message: "The key must be between 1-256 chars." }))
    }
    let body: unknown
    try {
      body = JSON.parse(request.body)
    } catch {
      return answer(errorReply({ status: 422, name: "validation_error", message: "The body is not valid JSON." }))
    }

    const fingerprint = `${path} ${canonical(body)}`
    if (key !== undefined) {
      const entry = this.entry(key)
      if (entry !== undefined && entry.fingerprint !== fingerprint) {
        return answer(errorReply({
          status: 409,
          name: "invalid_idempotent_request",
          message: "Same idempotency key used with a different request payload. Change your idempotency key or payload."
        }))
      }
      if (entry?.state === "in_flight") {
        return answer(errorReply({
          status: 409,
          name: "concurrent_idempotent_requests",
          message: "Same idempotency key used while original request is still in progress. Try the request again later."
        }))
      }
      if (entry?.state === "done") {
        markReplayed()
        return entry.reply
      }
      this.keys.set(key, { state: "in_flight", fingerprint })
    }
    // Errors are not cached: only an accepted answer is kept under the key.
    const release = (reply: Reply) => {
      if (key !== undefined) this.keys.delete(key)
      return reply
    }

    const fault = this.faults.shift()
    if (fault?._tag === "Delay") await this.sleep(fault.millis)
    if (fault?._tag === "Fail") return release(answer(errorReply(fault.error)))
    if (fault?._tag === "Drop") return release({ _tag: "Drop" })

    const valid = validatePayload(path, body, this.options.verifiedDomains)
    if (!valid.ok) return release(answer(errorReply(valid.error)))

    const acceptedAt = Date.now()
    const accepted = valid.value.map((email): AcceptedEmail => ({
      ...email,
      id: crypto.randomUUID(),
      idempotencyKey: key,
      endpoint: path as Endpoint,
      acceptedAt
    }))
    this.emails.push(...accepted)
    const reply = answer(
      path === "/emails" ? json(200, { id: accepted[0]!.id }) : json(200, { data: accepted.map(({ id }) => ({ id })) })
    )
    if (key !== undefined) this.keys.set(key, { state: "done", fingerprint, reply, at: acceptedAt })
    return fault?._tag === "AcceptThenDrop" ? { _tag: "Drop" } : reply
  }

  private entry(key: string): KeyEntry | undefined {
    const entry = this.keys.get(key)
    const window = this.options.idempotencyWindowMillis ?? 24 * 60 * 60 * 1000
    if (entry?.state === "done" && Date.now() - entry.at >= window) {
      this.keys.delete(key)
      return undefined
    }
    return entry
  }

  /** A fixed window: `requests` per `windowMillis`, with Resend's `ratelimit-*` headers. */
  private rateLimit(): { readonly exceeded: boolean; readonly headers: Record<string, string> } {
    const limit = this.options.rateLimit
    if (limit === undefined) return { exceeded: false, headers: {} }
    const windowMillis = limit.windowMillis ?? 1000
    const now = Date.now()
    if (now - this.window.startedAt >= windowMillis) this.window = { startedAt: now, count: 0 }
    this.window.count += 1
    const resetSeconds = Math.max(1, Math.ceil((this.window.startedAt + windowMillis - now) / 1000))
    return {
      exceeded: this.window.count > limit.requests,
      headers: {
        "ratelimit-limit": String(limit.requests),
        "ratelimit-remaining": String(Math.max(0, limit.requests - this.window.count)),
        "ratelimit-reset": String(resetSeconds)
      }
    }
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
