import {
  fromBase64,
  type HeaderRejection,
  malformedHeader,
  missingHeader,
  utf8,
  type WebhookRequest
} from "@hookgate/core/providers"
import * as Either from "effect/Either"

/** The three headers, under the spec's `webhook-*` names or Svix's `svix-*` ones. */
export const HEADER_PREFIXES = ["webhook-", "svix-"] as const

/** A parsed delivery: the message id, the signed timestamp and every `v1` signature. */
export interface Signature {
  readonly id: string
  readonly timestamp: number
  readonly signatures: ReadonlyArray<Uint8Array>
}

const TIMESTAMP = /^\d{1,12}$/
const MAC_BYTES = 32

/** `webhook-*` when any of its headers is present, else `svix-*`. */
const prefixOf = (request: WebhookRequest) =>
  ["id", "timestamp", "signature"].some((name) => request.header(`webhook-${name}`) !== undefined) ? "webhook-" : "svix-"

/**
 * Reads `webhook-id`, `webhook-timestamp` and `webhook-signature` (or their
 * `svix-*` twins). The signature header is a space-separated list of
 * `<version>,<base64>`; only `v1` (HMAC-SHA256) counts, others such as the
 * asymmetric `v1a` are skipped. A repeated header reaches here joined with ", "
 * and no longer parses.
 */
export const parseSignature = (request: WebhookRequest): Either.Either<Signature, HeaderRejection> => {
  const fail = (reason: HeaderRejection["reason"], detail: string) =>
    reason === "missing_header" ? missingHeader(detail) : malformedHeader(detail)
  const prefix = prefixOf(request)
  const read = (name: string) => {
    const value = request.header(`${prefix}${name}`)
    return value === undefined || value.trim() === "" ? undefined : value.trim()
  }
  const id = read("id")
  const timestamp = read("timestamp")
  const signature = read("signature")
  if (id === undefined) return fail("missing_header", `no ${prefix}id header`)
  if (timestamp === undefined) return fail("missing_header", `no ${prefix}timestamp header`)
  if (signature === undefined) return fail("missing_header", `no ${prefix}signature header`)
  if (/[\s,]/.test(id)) return fail("malformed_header", `${prefix}id holds more than one value`)
  if (!TIMESTAMP.test(timestamp)) return fail("malformed_header", `${prefix}timestamp is not a unix time in seconds`)

  const signatures: Array<Uint8Array> = []
  for (const entry of signature.split(" ")) {
    if (entry === "") continue
    const comma = entry.indexOf(",")
    if (comma < 0) return fail("malformed_header", `a ${prefix}signature entry is not <version>,<signature>`)
    if (entry.slice(0, comma) !== "v1") continue
    const mac = fromBase64(entry.slice(comma + 1))
    if (mac === undefined || mac.byteLength !== MAC_BYTES) {
      return fail("malformed_header", `a v1 signature is not the base64 of 32 bytes`)
    }
    signatures.push(mac)
  }
  if (signatures.length === 0) return fail("malformed_header", `no v1 signature in ${prefix}signature`)
  return Either.right({ id, timestamp: Number(timestamp), signatures })
}

/** The signed content's prefix: `${id}.${timestamp}.`, the raw body follows. */
export const signedPrefix = (id: string, timestamp: number) => utf8(`${id}.${timestamp}.`)

/** What a Standard Webhooks sender signs: `${id}.${timestamp}.` followed by the raw body. */
export const signedContent = (signature: Signature, request: WebhookRequest): ReadonlyArray<Uint8Array> => [
  signedPrefix(signature.id, signature.timestamp),
  request.body
]
