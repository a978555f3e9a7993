import { Fulfilment } from "@hookgate/core"
import { describeParseError, MalformedPayload, type VerifiedEvent } from "@hookgate/core/providers"
import { Effect, Option, type ParseResult, Schema } from "effect"

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

export interface FulfilOnOptions<A, I> {
  /** The event types that can pay for an order; every other type is `None` (answered `ignored`). */
  readonly types: ReadonlyArray<string>
  /** Decodes the payload of those types. Name only the fields you use, so added fields do no harm. */
  readonly schema: Schema.Schema<A, I>
  /** The order the decoded event pays for, or `null` when this one does not pay (a status still pending, say). */
  readonly fulfilment: (decoded: A, event: VerifiedEvent) => FulfilmentFields | null
}

// Through the schema rather than the constructor, so an invalid value is an answer, not a thrown defect.
const decodeFulfilment = Schema.decodeUnknown(Fulfilment)

/**
 * The usual shape of a provider's `fulfilment`: a few event types, one schema,
 * one mapping. A payload of a paying type that does not decode, or a mapping
 * that yields an invalid fulfilment (an empty email, a fractional amount), is
 * `MalformedPayload`, so nothing is stored.
 */
export const fulfilOn = <A, I>(options: FulfilOnOptions<A, I>) => {
  const types: ReadonlySet<string> = new Set(options.types)
  const decode = Schema.decodeUnknown(options.schema)

  return (event: VerifiedEvent): Effect.Effect<Option.Option<Fulfilment>, MalformedPayload> => {
    if (!types.has(event.type)) return Effect.succeedNone
    const malformed = (what: string) => (error: ParseResult.ParseError) =>
      new MalformedPayload({ provider: event.provider, detail: `${what}: ${describeParseError(error)}` })
    return Effect.gen(function*() {
      const decoded = yield* Effect.mapError(decode(event.payload), malformed(event.type))
      const fields = options.fulfilment(decoded, event)
      if (fields === null) return Option.none()
      if (fields.orderId.trim() === "") {
        return yield* new MalformedPayload({ provider: event.provider, detail: "fulfilment: the order id is empty" })
      }
      const fulfilment = yield* Effect.mapError(
        decodeFulfilment({
          orderKey: `${event.provider}:${fields.orderId}`,
          email: fields.email.trim(),
          product: fields.product ?? null,
          amount: fields.amount,
          currency: fields.currency,
          metadata: fields.metadata ?? {}
        }),
        malformed("fulfilment")
      )
      return Option.some(fulfilment)
    })
  }
}
