import { Fulfilment, type MalformedPayload } from "@hookgate/core"
import type { Effect } from "effect"
import { decoderFor } from "./payload.js"

/**
 * Builds a `Fulfilment` through its schema rather than its constructor, so a
 * value the schema refuses (an empty email, a fractional amount) is a
 * `MalformedPayload` answer instead of a thrown defect.
 */
export const buildFulfilment = (provider: string) => {
  const decode = decoderFor(provider, "fulfilment", Fulfilment)
  return (fields: typeof Fulfilment.Encoded): Effect.Effect<Fulfilment, MalformedPayload> => decode(fields)
}
