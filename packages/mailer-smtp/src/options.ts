import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { readFileSync } from "node:fs"

/**
 * How the connection is secured:
 * - `starttls`: plain connect, then STARTTLS, required (the server must offer it) — submission, port 587;
 * - `tls`: TLS from the first byte ("implicit TLS", SMTPS) — port 465;
 * - `none`: no TLS at all, not even offered STARTTLS — a relay on localhost or a private network only.
 */
export type SmtpSecurity = "starttls" | "tls" | "none"

/** The port each mode uses when none is given. */
export const DEFAULT_PORTS: Readonly<Record<SmtpSecurity, number>> = { starttls: 587, tls: 465, none: 25 }
/** One send, from taking a pooled connection (or opening one) to the server's reply to the message. */
export const DEFAULT_TIMEOUT = Duration.seconds(30)
/** How many connections the pool keeps open at most. */
export const DEFAULT_POOL_SIZE = 5

/** The header that carries the idempotency key, for tracing (SMTP has no idempotency of its own). */
export const IDEMPOTENCY_HEADER = "X-Hookgate-Idempotency-Key"

/** TLS settings for either mode (passed to Node's `tls.connect`). */
export interface SmtpTlsOptions {
  /** Extra trusted certificates (PEM), for a relay with a private CA or a self-signed certificate. */
  readonly ca?: string | ReadonlyArray<string>
  /** The name the certificate must carry when it differs from `host` (e.g. `host` is an IP address). */
  readonly servername?: string
}

/** The SMTP mailer's settings. */
export interface SmtpOptions {
  readonly host: string
  /** Default: 587 (`starttls`), 465 (`tls`), 25 (`none`). */
  readonly port?: number
  /** Default `starttls`. */
  readonly security?: SmtpSecurity
  /** Both or neither: AUTH PLAIN/LOGIN with these (the password stays `Redacted`). */
  readonly auth?: { readonly user: string; readonly password: Redacted.Redacted<string> }
  readonly tls?: SmtpTlsOptions
  /** Connections the pool keeps at most (default 5). */
  readonly poolSize?: number
  /** One send (default 30 s); past it the send is `Unknown` if the message was being written, else `Transient`. */
  readonly timeout?: Duration.DurationInput
  /** The name given in EHLO (default: this machine's hostname). */
  readonly clientName?: string
  /** The mailer's name in receipts, errors and metrics (default `smtp`). */
  readonly name?: string
}

const security = Config.literal("starttls", "tls", "none")("SMTP_SECURITY").pipe(Config.withDefault("starttls" as const))

const auth = Config.all({
  user: Config.option(Config.nonEmptyString("SMTP_USER")),
  password: Config.option(Config.redacted("SMTP_PASSWORD"))
}).pipe(
  Config.mapOrFail(({ password, user }) => {
    if (Option.isSome(user) && Option.isSome(password)) {
      return Either.right(Option.some({ user: user.value, password: password.value }))
    }
    if (Option.isNone(user) && Option.isNone(password)) return Either.right(Option.none())
    return Either.left(
      ConfigError.InvalidData([], "SMTP_USER and SMTP_PASSWORD go together: set both, or neither for a relay without AUTH")
    )
  })
)

/** A PEM file of extra trusted certificates, read when the settings are (a missing file is a config error). */
const caFile = Config.option(Config.nonEmptyString("SMTP_TLS_CA_FILE")).pipe(
  Config.mapOrFail((path) => {
    if (Option.isNone(path)) return Either.right(Option.none<string>())
    try {
      return Either.right(Option.some(readFileSync(path.value, "utf8")))
    } catch (error) {
      const reason = typeof (error as { code?: unknown }).code === "string" ? (error as { code: string }).code : "unreadable"
      return Either.left(ConfigError.InvalidData(["SMTP_TLS_CA_FILE"], `cannot read ${path.value} (${reason})`))
    }
  })
)

const tls = Config.all({ ca: caFile, servername: Config.option(Config.nonEmptyString("SMTP_TLS_SERVERNAME")) }).pipe(
  Config.map(({ ca, servername }): SmtpTlsOptions | undefined =>
    Option.isNone(ca) && Option.isNone(servername) ? undefined : {
      ...(Option.isSome(ca) ? { ca: ca.value } : {}),
      ...(Option.isSome(servername) ? { servername: servername.value } : {})
    }
  )
)

/**
 * Reads `SMTP_HOST` (required), `SMTP_PORT` (default by mode), `SMTP_SECURITY`
 * (`starttls` | `tls` | `none`, default `starttls`), `SMTP_USER` and
 * `SMTP_PASSWORD` (redacted; both or neither), `SMTP_POOL_SIZE` (default 5),
 * `SMTP_TIMEOUT` (a duration, default 30 seconds), `SMTP_TLS_CA_FILE` (a PEM file of
 * extra trusted certificates) and `SMTP_TLS_SERVERNAME` (the name the certificate carries).
 */
export const SmtpConfig: Config.Config<SmtpOptions> = Config.all({
  host: Config.nonEmptyString("SMTP_HOST"),
  port: Config.option(Config.port("SMTP_PORT")),
  security,
  auth,
  tls,
  // Validated before the default, so the refusal names its setting (a ConfigError's path).
  poolSize: Config.integer("SMTP_POOL_SIZE").pipe(
    Config.validate({ message: "must be between 1 and 100", validation: (n) => n >= 1 && n <= 100 }),
    Config.withDefault(DEFAULT_POOL_SIZE)
  ),
  timeout: Config.duration("SMTP_TIMEOUT").pipe(Config.withDefault(DEFAULT_TIMEOUT))
}).pipe(
  Config.map(({ auth, port, tls, ...rest }): SmtpOptions => ({
    ...rest,
    ...(Option.isSome(port) ? { port: port.value } : {}),
    ...(Option.isSome(auth) ? { auth: auth.value } : {}),
    ...(tls === undefined ? {} : { tls })
  }))
)
