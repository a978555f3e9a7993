import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { MalformedPayload } from "./errors.js"

// Fatal: a body that is not valid UTF-8 is malformed, not silently repaired.
const decoder = new TextDecoder("utf-8", { fatal: true })

/** The raw body as JSON, after its signature checked out. */
export const parseJsonBody = (provider: string, body: Uint8Array): Effect.Effect<unknown, MalformedPayload> =>
  Effect.try({
    try: () => JSON.parse(decoder.decode(body)) as unknown,
    catch: () => new MalformedPayload({ provider, detail: "body is not UTF-8 JSON" })
  })

/** Paths and messages of a decode failure, on one line. */
export const describeParseError = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => `${issue.path.length === 0 ? "(root)" : issue.path.join(".")}: ${issue.message}`)
    .join("; ")

/** A decoder, built once, whose failure is a `MalformedPayload` naming what was being decoded. */
export const decoderFor = <A, I>(provider: string, what: string, schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(schema)
  return (input: unknown): Effect.Effect<A, MalformedPayload> =>
    Effect.mapError(decode(input), (error) => new MalformedPayload({ provider, detail: `${what}: ${describeParseError(error)}` }))
}
