import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { sha256 } from "../kernel/digest.js"
import { timingSafeEqual, utf8 } from "../providers/bytes.js"

/**
 * The admin token: a `Redacted` value, or a `Config` read on each request (a
 * Worker's secrets live in `env`, which exists only per invocation). A Config
 * that is not set, or an empty token, lets nobody in.
 */
export type AdminToken = Redacted.Redacted<string> | Config.Config<Redacted.Redacted<string>>

/** What a request without the right token gets, on every admin route. */
const unauthorized = HttpServerResponse.unsafeJson({ status: "unauthorized" }, { status: 401 })

const digest = (header: string) => sha256(utf8(header))
// The auth scheme is case-insensitive (RFC 9110, 11.1): `bearer x` is `Bearer x`. The token itself is compared exactly.
const normalScheme = (header: string) => header.replace(/^bearer(?= )/i, "Bearer")
// An empty token is no token: it would open the routes to `Authorization: Bearer `.
const expectedDigest = (token: Redacted.Redacted<string>): Effect.Effect<Option.Option<Uint8Array>> =>
  Redacted.value(token).trim() === "" ? Effect.succeedNone : Effect.asSome(digest(`Bearer ${Redacted.value(token)}`))

/**
 * Wraps an admin handler so it runs only with `Authorization: Bearer <token>`
 * (the scheme in any case: `bearer <token>` too);
 * anything else answers 401 `{ "status": "unauthorized" }`.
 *
 * Both sides are hashed with SHA-256 before a constant-time comparison of the
 * digests, so neither the token's content nor its length shows in the timing.
 */
export const adminTokenGuard = (token: AdminToken) => {
  const expected: Effect.Effect<Option.Option<Uint8Array>> = Redacted.isRedacted(token)
    ? expectedDigest(token)
    : Effect.flatMap(Effect.option(token), Option.match({ onNone: () => Effect.succeedNone, onSome: expectedDigest }))
  return <E, R>(
    handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const digestOfToken = yield* expected
      if (Option.isNone(digestOfToken)) return unauthorized
      const given = yield* digest(normalScheme(request.headers["authorization"] ?? ""))
      return timingSafeEqual(given, digestOfToken.value) ? yield* handler : unauthorized
    })
}

/** The admin token when one is set and not empty (the console answers 404 otherwise). */
export const resolveAdminToken = (token: AdminToken): Effect.Effect<Option.Option<Redacted.Redacted<string>>> =>
  Effect.map(
    Redacted.isRedacted(token) ? Effect.succeedSome(token) : Effect.option(token),
    Option.filter((value) => Redacted.value(value).trim() !== "")
  )

/** Whether `given` is the token: both sides hashed, the digests compared in constant time. */
export const tokenMatches = (token: Redacted.Redacted<string>, given: string): Effect.Effect<boolean> =>
  Effect.zipWith(digest(given), digest(Redacted.value(token)), timingSafeEqual)
