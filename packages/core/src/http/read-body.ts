import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { BodyTooLarge } from "./errors.js"

/**
 * Reads a request body as bytes, refusing more than `limitBytes`: by its
 * Content-Length before reading, and by counting while reading (a chunked body
 * or a lying header stops at the limit, not at the end).
 */
export const readBodyLimited = (request: HttpServerRequest.HttpServerRequest, limitBytes: number) =>
  Effect.gen(function*() {
    const declared = Number(request.headers["content-length"])
    if (Number.isFinite(declared) && declared > limitBytes) {
      return yield* new BodyTooLarge({ limitBytes })
    }
    const chunks = yield* request.stream.pipe(
      Stream.mapAccumEffect(0, (total, chunk) =>
        total + chunk.byteLength > limitBytes
          ? Effect.fail(new BodyTooLarge({ limitBytes }))
          : Effect.succeed([total + chunk.byteLength, chunk] as const)),
      Stream.runCollect
    )
    const body = new Uint8Array(Array.from(chunks).reduce((sum, chunk) => sum + chunk.byteLength, 0))
    let offset = 0
    for (const chunk of chunks) {
      body.set(chunk, offset)
      offset += chunk.byteLength
    }
    return body
  })
