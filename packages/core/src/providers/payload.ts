import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { MalformedPayload } from "./errors.js"
import { stringStructCheck } from "./string-struct.js"

// Fatal: a body that is not valid UTF-8 is malformed, not silently repaired.
const decoder = new TextDecoder("utf-8", { fatal: true })

/** The raw body as JSON, or `MalformedPayload`: the synchronous form of `parseJsonBody`. */
export const parseJsonEither = (provider: string, body: Uint8Array): Either.Either<unknown, MalformedPayload> => {
  try {
    return Either.right(JSON.parse(decoder.decode(body)) as unknown)
  } catch {
    return Either.left(new MalformedPayload({ provider, detail: "body is not UTF-8 JSON" }))
  }
}

/** The raw body as JSON, after its signature checked out. */
export const parseJsonBody = (provider: string, body: Uint8Array): Effect.Effect<unknown, MalformedPayload> =>
  Effect.suspend(() => parseJsonEither(provider, body))

/** Paths and messages of a decode failure, on one line. */
export const describeParseError = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => `${issue.path.length === 0 ? "(root)" : issue.path.join(".")}: ${issue.message}`)
    .join("; ")

/**
 * A synchronous decoder, built once, whose failure is a `MalformedPayload`
 * naming what was being decoded. The schema must decode synchronously (an
 * asynchronous one fails every input). A struct of string fields is checked
 * without the schema's machinery when it passes (`stringStructCheck`).
 */
export const eitherDecoderFor = <A, I>(provider: string, what: string, schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema)
  const slow = (input: unknown): Either.Either<A, MalformedPayload> =>
    Either.mapLeft(decode(input), (error) => new MalformedPayload({ provider, detail: `${what}: ${describeParseError(error)}` }))
  const check = stringStructCheck(schema.ast)
  if (check === undefined) return slow
  return (input: unknown): Either.Either<A, MalformedPayload> => {
    const checked = check(input)
    return checked === undefined ? slow(input) : Either.right(checked as A)
  }
}

/** A decoder, built once, whose failure is a `MalformedPayload` naming what was being decoded. */
export const decoderFor = <A, I>(provider: string, what: string, schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(schema)
  return (input: unknown): Effect.Effect<A, MalformedPayload> =>
    Effect.mapError(decode(input), (error) => new MalformedPayload({ provider, detail: `${what}: ${describeParseError(error)}` }))
}
