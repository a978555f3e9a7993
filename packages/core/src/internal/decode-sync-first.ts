import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/**
 * `Schema.decodeUnknown(schema)`, tried synchronously first: a decode that succeeds
 * without suspending is answered as an `Either` (an Effect that needs no fiber step
 * of its own), the common case on a webhook's path. Any failure, an asynchronous
 * schema's included (which the synchronous parser cannot finish), is decided by the
 * general effectful decode, so every answer is that decode's (`test/decode-sync-first.test.ts`).
 */
export const decodeSyncFirst = <A, I, R>(schema: Schema.Schema<A, I, R>) => {
  const sync = Schema.decodeUnknownEither(schema as Schema.Schema<A, I, never>)
  const general = Schema.decodeUnknown(schema)
  return (input: unknown): Effect.Effect<A, ParseResult.ParseError, R> => {
    const decoded = sync(input)
    return Either.isRight(decoded) ? decoded : general(input)
  }
}
