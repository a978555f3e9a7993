import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Fulfilment } from "../kernel/fulfilment.js"
import { isAddrSpec } from "./email-address.js"
import { MalformedPayload } from "./errors.js"
import { describeParseError } from "./payload.js"
import type { VerifiedEvent } from "./webhook.js"

/** What a paying event yields; `orderId` becomes the order key `<provider>:<orderId>`. */
export interface FulfilmentFields {
  readonly orderId: string
  readonly email: string
  readonly product?: string | null
  /** In the currency's minor unit (cents). */
  readonly amount: number
  readonly currency: string
  readonly metadata?: Record<string, string>
}

/** Options of `fulfilOn`: which types pay, how their payload decodes, and the order it pays for. */
export interface FulfilOnOptions<A, I, P = never, PI = never> {
  /** The event types that can pay for an order; every other type is `None` (answered `ignored`). */
  readonly types: Iterable<string>
  /**
   * Read before `schema`, for a paying type that may not pay yet (a Checkout
   * Session still `unpaid`): when `is` answers true the event is `None`, so an
   * event that is ignored can never be malformed. Name only the state fields.
   */
  readonly pending?: {
    /** The paying types that may be pending; default all of `types`. */
    readonly types?: Iterable<string>
    readonly schema: Schema.Schema<P, PI>
    readonly is: (state: P, event: VerifiedEvent) => boolean
  }
  /** Decodes the payload of those types. Name only the fields you use, so added fields do no harm. */
  readonly schema: Schema.Schema<A, I>
  /** The order the decoded event pays for, or `null` when this one does not pay (a status still pending, say). */
  readonly fulfilment: (decoded: A, event: VerifiedEvent) => FulfilmentFields | null
  /**
   * Where the provider's object id sits in the payload (`["data", "object", "id"]`),
   * read leniently so that an event that fails to decode can still be traced.
   */
  readonly objectIdAt?: ReadonlyArray<string>
}

/**
 * A provider's free-form metadata (custom data set at checkout) as the strings a
 * `Fulfilment` keeps: text as is, any other value as its JSON; nulls dropped.
 */
export const metadataStrings = (metadata: Readonly<Record<string, unknown>> | null | undefined): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(metadata ?? {})) {
    if (value === undefined || value === null) continue
    out[key] = typeof value === "string" ? value : JSON.stringify(value)
  }
  return out
}

/** The string at `path` in `payload`, or undefined. */
const stringAt = (payload: unknown, path: ReadonlyArray<string>): string | undefined => {
  let current: unknown = payload
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return typeof current === "string" ? current : undefined
}

/** The longest order key (`<provider>:<order id>`) a provider may hand the store. */
export const MAX_ORDER_KEY_LENGTH = 200
/** The longest email address (RFC 5321's path limit less the angle brackets). */
export const MAX_EMAIL_LENGTH = 254

// C0 controls (CR, LF, NUL, …), DEL and C1 controls: never part of an id or an address,
// and CR/LF in either could split a header line downstream.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u
const MAX_LOCAL_PART = 64

/** A reason a fulfilment cannot enter the store; `invalidInput` for a rule no retry can change. */
interface Problem {
  readonly detail: string
  readonly invalidInput: boolean
}
const invalid = (detail: string): Problem => ({ detail, invalidInput: true })
const missing = (detail: string): Problem => ({ detail, invalidInput: false })

/** Why an order id cannot enter the store, or undefined when it can. */
const orderIdProblem = (orderKey: string, orderId: string): Problem | undefined => {
  if (orderId.trim() === "") return missing("the order id is empty")
  if (CONTROL.test(orderId)) return invalid("the order id holds a control character")
  if (orderKey.length > MAX_ORDER_KEY_LENGTH) return invalid(`the order key is longer than ${MAX_ORDER_KEY_LENGTH} characters`)
  return undefined
}

/** Why an email cannot be sent to, or undefined when it can. */
const emailProblem = (email: string): Problem | undefined => {
  if (email === "") return missing("the email is empty")
  if (CONTROL.test(email)) return invalid("the email holds a control character")
  if (email.length > MAX_EMAIL_LENGTH) return invalid(`the email is longer than ${MAX_EMAIL_LENGTH} characters`)
  if (!isAddrSpec(email) || email.indexOf("@") > MAX_LOCAL_PART) return missing("the email is not an address (local@domain)")
  return undefined
}

// Through the schema rather than the constructor, so an invalid value is an answer, not a thrown defect.
let fulfilmentDecoder: ((input: unknown) => Effect.Effect<Fulfilment, ParseResult.ParseError>) | undefined
const decodeFulfilment = (input: unknown) => (fulfilmentDecoder ??= Schema.decodeUnknown(Fulfilment))(input)

/**
 * The one way a provider maps events to fulfilments: a few event types, one
 * schema, one mapping. Unknown types are `None` without a look at their payload.
 * A paying payload that does not decode, or a mapping that yields an invalid
 * fulfilment (an empty or control-laden order id, an order key over 200
 * characters, an email that is not an address of at most 254 characters, a
 * fractional amount), is `MalformedPayload` with the provider's object id where
 * `objectIdAt` finds it; a control character or an over-long id or email is
 * flagged `invalidInput` (400). `receive` stores either as a receipt with an alert
 * and answers every other one 500 `unfulfillable`, so the provider retries.
 * The email is trimmed; the order key is `<provider>:<orderId>`.
 */
export const fulfilOn = <A, I, P = never, PI = never>(options: FulfilOnOptions<A, I, P, PI>) => {
  const types: ReadonlySet<string> = new Set(options.types)
  // Decoders made on first use and kept: building one's parser is work a
  // Worker's module evaluation need not do for every provider it could mount.
  let decoder: ((payload: unknown) => Effect.Effect<A, ParseResult.ParseError>) | undefined
  const decode = (payload: unknown) => (decoder ??= Schema.decodeUnknown(options.schema))(payload)
  const pending = options.pending
  let stateDecoder: ((payload: unknown) => Effect.Effect<P, ParseResult.ParseError>) | undefined
  const decodeState = pending === undefined ? undefined : (payload: unknown) => (stateDecoder ??= Schema.decodeUnknown(pending.schema))(payload)
  const mayPend: ReadonlySet<string> = new Set(pending?.types ?? types)

  return (event: VerifiedEvent): Effect.Effect<Option.Option<Fulfilment>, MalformedPayload> => {
    if (!types.has(event.type)) return Effect.succeedNone
    const objectId = options.objectIdAt === undefined ? undefined : stringAt(event.payload, options.objectIdAt)
    const malformed = (detail: string, invalidInput = false) =>
      new MalformedPayload({
        provider: event.provider,
        detail,
        ...(objectId === undefined ? {} : { objectId }),
        ...(invalidInput ? { invalidInput } : {})
      })
    const undecodable = (what: string) => (error: ParseResult.ParseError) => malformed(`${what}: ${describeParseError(error)}`)
    return Effect.gen(function*() {
      if (pending !== undefined && decodeState !== undefined && mayPend.has(event.type)) {
        const state = yield* Effect.mapError(decodeState(event.payload), undecodable(event.type))
        if (pending.is(state, event)) return Option.none()
      }
      const decoded = yield* Effect.mapError(decode(event.payload), undecodable(event.type))
      const fields = options.fulfilment(decoded, event)
      if (fields === null) return Option.none()
      const orderKey = `${event.provider}:${fields.orderId}`
      const email = fields.email.trim()
      const problem = orderIdProblem(orderKey, fields.orderId) ?? emailProblem(email)
      if (problem !== undefined) return yield* malformed(`fulfilment: ${problem.detail}`, problem.invalidInput)
      const fulfilment = yield* Effect.mapError(
        decodeFulfilment({
          orderKey,
          email,
          product: fields.product ?? null,
          amount: fields.amount,
          currency: fields.currency,
          metadata: fields.metadata ?? {}
        }),
        undecodable("fulfilment")
      )
      return Option.some(fulfilment)
    })
  }
}
