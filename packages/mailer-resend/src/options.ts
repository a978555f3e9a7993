import { durationConfig } from "@hookgate/core"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import type * as Redacted from "effect/Redacted"

/** Resend's API. */
export const DEFAULT_BASE_URL = "https://api.resend.com"
/** How long one call may take. */
export const DEFAULT_TIMEOUT = Duration.seconds(10)
/** The User-Agent sent to Resend. */
export const DEFAULT_USER_AGENT = "hookgate-mailer-resend/0.1.0"
/** How long to wait after a quota error that names no `retry-after`. */
export const DEFAULT_QUOTA_RETRY_AFTER = Duration.hours(1)

/** The Resend mailer's settings. */
export interface ResendOptions {
  /** `re_…`; kept `Redacted`, so it never shows in a log, an error or a span. */
  readonly apiKey: Redacted.Redacted<string>
  /** Default `https://api.resend.com`; point it at the test server in tests. */
  readonly baseUrl?: string
  /** One request, from connect to the last byte of the answer (default 10 s); past it the send is `Unknown`. */
  readonly timeout?: Duration.DurationInput
  /** Resend refuses requests without a User-Agent (default `hookgate-mailer-resend/0.1.0`). */
  readonly userAgent?: string
  /** The least delay before retrying after a daily or monthly quota error (default 1 hour). */
  readonly quotaRetryAfter?: Duration.DurationInput
  /** The mailer's name in receipts, errors and metrics (default `resend`). */
  readonly name?: string
}

/**
 * Reads `RESEND_API_KEY` (required, redacted), `RESEND_BASE_URL` (default
 * `https://api.resend.com`) and `RESEND_TIMEOUT` (a duration, default 10 seconds).
 */
export const ResendConfig: Config.Config<ResendOptions> = Config.all({
  apiKey: Config.redacted("RESEND_API_KEY"),
  baseUrl: Config.string("RESEND_BASE_URL").pipe(Config.withDefault(DEFAULT_BASE_URL)),
  timeout: durationConfig("RESEND_TIMEOUT").pipe(Config.withDefault(DEFAULT_TIMEOUT))
})
