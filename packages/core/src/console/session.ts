import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as EpochMillis from "../kernel/EpochMillis.js"
import { fromHex, timingSafeEqual, toHex, utf8 } from "../providers/bytes.js"
import { type HmacKey, importHmacKey } from "../providers/hmac.js"

/**
 * The console's session: a cookie `<expires>.<nonce>.<operator>.<mac>` whose MAC is
 * HMAC-SHA256 under a key derived from the admin token (a new token ends every session),
 * and a CSRF token that is the MAC of the session's nonce under the same key, so a form
 * carries a value only a signed-in page could have shown.
 */
export interface Session {
  readonly expiresAt: number
  readonly nonce: string
  /** Who signed in (the name typed at sign-in), for the log of what they did. */
  readonly operator: string
  readonly csrf: string
}

export const COOKIE = "hookgate_console"

const keyOf = (token: Redacted.Redacted<string>): Effect.Effect<HmacKey> =>
  importHmacKey(`hookgate console session\u0000${Redacted.value(token)}`)

const mac = (key: HmacKey, ...parts: ReadonlyArray<string>) =>
  Effect.map(key.sign([utf8(parts.join("\u0000"))]), toHex)

const b64url = (text: string) => btoa(String.fromCharCode(...utf8(text))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
const unb64url = (text: string): string | undefined => {
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"))
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)))
  } catch {
    return undefined
  }
}

const randomNonce = () => toHex(crypto.getRandomValues(new Uint8Array(16)))

const csrfOf = (key: HmacKey, nonce: string) => mac(key, "csrf", nonce)

/** A new session for `operator`, expiring `ttlMillis` from now: its cookie value and the session. */
export const openSession = (token: Redacted.Redacted<string>, operator: string, ttlMillis: number) =>
  Effect.gen(function*() {
    const key = yield* keyOf(token)
    const expiresAt = (yield* EpochMillis.now) + ttlMillis
    const nonce = randomNonce()
    const name = b64url(operator)
    const signature = yield* mac(key, "session", String(expiresAt), nonce, name)
    const session: Session = { expiresAt, nonce, operator, csrf: yield* csrfOf(key, nonce) }
    return { cookie: `${expiresAt}.${nonce}.${name}.${signature}`, session }
  })

const sameMac = (a: string, b: string) => {
  const x = fromHex(a)
  const y = fromHex(b)
  return x !== undefined && y !== undefined && timingSafeEqual(x, y)
}

/** The session a cookie value carries, when its MAC holds under this token and it has not expired. */
export const readSession = (
  token: Redacted.Redacted<string>,
  cookie: string | undefined
): Effect.Effect<Option.Option<Session>> =>
  Effect.gen(function*() {
    if (cookie === undefined) return Option.none()
    const parts = cookie.split(".")
    if (parts.length !== 4) return Option.none()
    const [expires, nonce, name, signature] = parts as [string, string, string, string]
    if (!/^\d{1,16}$/.test(expires) || !/^[0-9a-f]{32}$/.test(nonce) || !/^[0-9a-f]{64}$/.test(signature)) return Option.none()
    const key = yield* keyOf(token)
    if (!sameMac(yield* mac(key, "session", expires, nonce, name), signature)) return Option.none()
    const expiresAt = Number(expires)
    if ((yield* EpochMillis.now) >= expiresAt) return Option.none()
    const operator = unb64url(name)
    if (operator === undefined) return Option.none()
    return Option.some({ expiresAt, nonce, operator, csrf: yield* csrfOf(key, nonce) })
  })

/** Whether a form's CSRF field is the session's. */
export const csrfMatches = (session: Session, given: string | undefined) =>
  given !== undefined && sameMac(session.csrf, given)
