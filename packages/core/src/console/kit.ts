import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { type AdminToken, resolveAdminToken, tokenMatches } from "../http/admin-token.js"
import { css, icon, progressScript } from "./assets.js"
import { type Frame, notice, page as pageOf, securityHeaders } from "./render.js"
import { COOKIE, csrfMatches, openSession, readSession, type Session } from "./session.js"

/** Options of `consoleRoutes`. */
export interface ConsoleOptions {
  /** The admin token; the console answers 404 to everything while none is set. */
  readonly token: AdminToken
  /** Where the console lives (default `/console`). */
  readonly prefix?: string
  /** How long a sign-in lasts (default 8 hours). */
  readonly sessionTtl?: Duration.DurationInput
  /**
   * Whether the session cookie is `Secure`: `"auto"` (the default) when the request came
   * over HTTPS (its URL, or `X-Forwarded-Proto: https` from a proxy in front).
   */
  readonly secureCookie?: boolean | "auto"
}

/** What a signed-in handler is given. */
export interface Signed {
  readonly session: Session
  readonly frame: (title: string, extra?: Partial<Frame>) => Frame
  readonly base: string
}

const text = (body: string, contentType: string) =>
  HttpServerResponse.text(body, { contentType, headers: { ...securityHeaders, "cache-control": "max-age=300" } })

const redirect = (location: string) => HttpServerResponse.redirect(location, { status: 303, headers: securityHeaders })

const notFound = HttpServerResponse.text("Not Found", { status: 404, headers: securityHeaders })

const overHttps = (request: HttpServerRequest.HttpServerRequest) =>
  request.originalUrl.startsWith("https:") || request.headers["x-forwarded-proto"] === "https"

/** A form post from another origin is refused before anything else (the cookie's SameSite=Strict is the first line). */
const sameOrigin = (request: HttpServerRequest.HttpServerRequest) => {
  const origin = request.headers["origin"]
  if (origin === undefined) return true
  try {
    // A Worker's request carries its whole URL; Node's carries a path, and the host in its header.
    const host = /^https?:\/\//.test(request.originalUrl) ? new URL(request.originalUrl).host : request.headers["host"]
    return new URL(origin).host === host
  } catch {
    return false
  }
}

/** The console's guard, sign-in and static files: one per `consoleRoutes`. */
export const consoleKit = (options: ConsoleOptions) => {
  const base = (options.prefix ?? "/console").replace(/\/$/, "")
  const ttl = Duration.toMillis(options.sessionTtl ?? Duration.hours(8))
  const anonymous = (title: string, extra: Partial<Frame> = {}): Frame => ({ base, title, ...extra })

  /** Runs `f` with the token, or answers 404 when none is set. */
  const withToken = <E, R>(f: (token: Redacted.Redacted<string>) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.flatMap(resolveAdminToken(options.token), Option.match({ onNone: () => Effect.succeed(notFound), onSome: f }))

  const sessionOf = (token: Redacted.Redacted<string>) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => readSession(token, request.cookies[COOKIE]))

  const signed = (session: Session): Signed => ({
    session,
    base,
    frame: (title, extra = {}) => ({ base, title, session, ...extra })
  })

  /** A page for a signed-in operator; anyone else is sent to sign in. */
  const view = <E, R>(f: (signed: Signed) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    withToken((token) =>
      Effect.flatMap(sessionOf(token), Option.match({
        onNone: () => Effect.succeed(redirect(`${base}/sign-in`)),
        onSome: (session) => f(signed(session))
      }))
    )

  /**
   * A state-changing form: same origin, a valid session and its CSRF token, or 403 and
   * nothing changed. `f` gets the form's fields.
   */
  const action = <E, R>(
    f: (signed: Signed, form: UrlParams.UrlParams) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) =>
    withToken((token) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const refused = (why: string) => notice(anonymous("Refused"), why, 403)
        if (!sameOrigin(request)) return yield* refused("This form was posted from another site.")
        const session = yield* sessionOf(token)
        if (Option.isNone(session)) return yield* refused("Sign in first.")
        const form = yield* Effect.orElseSucceed(request.urlParamsBody, () => UrlParams.empty)
        if (!csrfMatches(session.value, Option.getOrUndefined(UrlParams.getFirst(form, "_csrf")))) {
          return yield* refused("This form is stale or was not made by the console: reload the page and try again.")
        }
        return yield* f(signed(session.value), form)
      })
    )

  const signIn = withToken((token) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (!sameOrigin(request)) return yield* notice(anonymous("Refused"), "This form was posted from another site.", 403)
      const form = yield* Effect.orElseSucceed(request.urlParamsBody, () => UrlParams.empty)
      const given = Option.getOrElse(UrlParams.getFirst(form, "token"), () => "")
      const operator = Option.getOrElse(UrlParams.getFirst(form, "operator"), () => "").trim().slice(0, 64)
      if (!(yield* tokenMatches(token, given)) || operator === "") {
        yield* Effect.logWarning("console: sign-in refused")
        return redirect(`${base}/sign-in?failed=1`)
      }
      const { cookie } = yield* openSession(token, operator, ttl)
      yield* Effect.logInfo("console: signed in").pipe(Effect.annotateLogs({ operator }))
      const secure = options.secureCookie === undefined || options.secureCookie === "auto" ? overHttps(request) : options.secureCookie
      return yield* HttpServerResponse.setCookie(redirect(base), COOKIE, cookie, {
        httpOnly: true,
        sameSite: "strict",
        secure,
        path: base,
        maxAge: Duration.millis(ttl)
      }).pipe(Effect.orDie)
    })
  )

  const signInPage = withToken(() =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      pageOf("signIn", anonymous("Sign in", {
        flash: request.url.includes("failed=1")
          ? { kind: "error", text: "That token is not the admin token (or your name is missing)." }
          : undefined
      }), {}))
  )

  const signOut = action(({ session }) =>
    Effect.logInfo("console: signed out").pipe(
      Effect.annotateLogs({ operator: session.operator }),
      Effect.zipRight(
        HttpServerResponse.setCookie(redirect(`${base}/sign-in`), COOKIE, "", {
          httpOnly: true,
          sameSite: "strict",
          path: base,
          maxAge: Duration.zero
        }).pipe(Effect.orDie)
      )
    )
  )

  const assets = HttpRouter.empty.pipe(
    HttpRouter.get(`${base}/assets/console.css` as `/${string}`, withToken(() => Effect.succeed(text(css, "text/css; charset=utf-8")))),
    HttpRouter.get(
      `${base}/assets/progress.js` as `/${string}`,
      withToken(() => Effect.succeed(text(progressScript, "text/javascript; charset=utf-8")))
    ),
    HttpRouter.get(`${base}/assets/icon.svg` as `/${string}`, withToken(() => Effect.succeed(text(icon, "image/svg+xml")))),
    HttpRouter.get(`${base}/sign-in` as `/${string}`, signInPage),
    HttpRouter.post(`${base}/sign-in` as `/${string}`, signIn),
    HttpRouter.post(`${base}/sign-out` as `/${string}`, signOut)
  )

  return { base, view, action, assets }
}
