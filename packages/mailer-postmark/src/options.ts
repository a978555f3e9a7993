import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"

/** Postmark's API. */
export const DEFAULT_BASE_URL = "https://api.postmarkapp.com"
/** How long one call may take. */
export const DEFAULT_TIMEOUT = Duration.seconds(10)
/** The User-Agent sent to Postmark. */
export const DEFAULT_USER_AGENT = "hookgate-mailer-postmark/0.1.0"

/** The header that carries the idempotency key, for tracing (Postmark has no idempotency key). */
export const IDEMPOTENCY_HEADER = "X-Hookgate-Idempotency-Key"

/** The Postmark mailer's settings. */
export interface PostmarkOptions {
  /** The server's API token, sent as `X-Postmark-Server-Token`; kept `Redacted`. */
  readonly serverToken: Redacted.Redacted<string>
  /** Default `https://api.postmarkapp.com`; point it at the stand-in in tests. */
  readonly baseUrl?: string
  /** `MessageStream` of every email (default: none sent, so Postmark's default transactional stream, `outbound`). */
  readonly messageStream?: string
  /** One request, from connect to the last byte of the answer (default 10 s); past it the send is `Unknown`. */
  readonly timeout?: Duration.DurationInput
  /** Default `hookgate-mailer-postmark/0.1.0`. */
  readonly userAgent?: string
  /** The mailer's name in receipts, errors and metrics (default `postmark`). */
  readonly name?: string
}

/**
 * Reads `POSTMARK_SERVER_TOKEN` (required, redacted), `POSTMARK_BASE_URL` (default
 * `https://api.postmarkapp.com`), `POSTMARK_MESSAGE_STREAM` (optional) and
 * `POSTMARK_TIMEOUT` (a duration, default 10 seconds).
 */
export const PostmarkConfig: Config.Config<PostmarkOptions> = Config.all({
  serverToken: Config.redacted("POSTMARK_SERVER_TOKEN"),
  baseUrl: Config.string("POSTMARK_BASE_URL").pipe(Config.withDefault(DEFAULT_BASE_URL)),
  messageStream: Config.option(Config.nonEmptyString("POSTMARK_MESSAGE_STREAM")),
  timeout: Config.duration("POSTMARK_TIMEOUT").pipe(Config.withDefault(DEFAULT_TIMEOUT))
}).pipe(
  Config.map(({ messageStream, ...rest }): PostmarkOptions => ({
    ...rest,
    ...(Option.isSome(messageStream) ? { messageStream: messageStream.value } : {})
  }))
)
