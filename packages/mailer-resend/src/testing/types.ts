/** An email the test server accepted (it "went out"). */
export interface AcceptedEmail {
  readonly id: string
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly subject: string
  readonly text: string | undefined
  readonly html: string | undefined
  readonly replyTo: ReadonlyArray<string> | undefined
  readonly headers: Readonly<Record<string, string>> | undefined
  readonly idempotencyKey: string | undefined
  readonly endpoint: "/emails" | "/emails/batch"
  /** Epoch ms. */
  readonly acceptedAt: number
}

/** Every request the server saw, with how it answered. */
export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly idempotencyKey: string | undefined
  readonly userAgent: string | undefined
  /** The W3C trace context the caller sent (`traceparent`), when it traces. */
  readonly traceparent: string | undefined
  /** The answer's status, or `"dropped"` when the server closed the connection instead of answering. */
  readonly status: number | "dropped"
  /** Resend's error `name` when the answer was an error. */
  readonly errorName: string | undefined
  /** Answered from the idempotency cache: the first answer again, no new email. */
  readonly replayed: boolean
  /** Epoch ms. */
  readonly receivedAt: number
}

/** An error answer as Resend sends it. */
export interface ResendErrorReply {
  readonly status: number
  readonly name: string
  readonly message: string
  /** Sent as `retry-after` (seconds). */
  readonly retryAfterSeconds?: number
}

/**
 * A scripted fault, applied to the next request that passes authentication,
 * the rate limit and the idempotency check (a replay answered from the cache
 * does not use one up).
 */
export type ResendFault =
  | { readonly _tag: "Fail"; readonly error: ResendErrorReply }
  /** Close the connection without accepting. */
  | { readonly _tag: "Drop" }
  /** Accept the email (recorded, and cached under its key), then close the connection without answering. */
  | { readonly _tag: "AcceptThenDrop" }
  /** Wait, then handle the request normally; its key counts as in flight meanwhile. */
  | { readonly _tag: "Delay"; readonly millis: number }

export interface ResendTestServerOptions {
  /** The only key the server accepts (default `re_test_key`). */
  readonly apiKey?: string
  /** Default 0: any free port. */
  readonly port?: number
  /** Default `127.0.0.1`. */
  readonly host?: string
  /** At most `requests` per `windowMillis` (default 1000); more answer 429 `rate_limit_exceeded` with `retry-after`. */
  readonly rateLimit?: { readonly requests: number; readonly windowMillis?: number }
  /** When set, `from` must be on one of these domains (else 403 `validation_error`, as for an unverified domain). */
  readonly verifiedDomains?: ReadonlyArray<string>
  /** How long a key's first answer is kept (default 24 hours). */
  readonly idempotencyWindowMillis?: number
}
