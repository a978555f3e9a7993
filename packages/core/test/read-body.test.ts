import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readWebRequestBody } from "../src/http/read-body.js"

const LIMIT = 64
const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request("https://shop.example/webhooks/stripe", { method: "POST", body, headers, duplex: "half" } as RequestInit)
const chunked = (...chunks: Array<string>) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk))
      controller.close()
    }
  })
const read = (request: Request) =>
  Effect.either(readWebRequestBody(request, LIMIT, (cause) => ({ _tag: "Unreadable" as const, cause })))
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

describe("readWebRequestBody", () => {
  it.effect("reads a body whose Content-Length is declared, and one without (chunked)", () =>
    Effect.gen(function*() {
      const declared = yield* read(post("x".repeat(LIMIT), { "content-length": String(LIMIT) }))
      expect(declared._tag === "Right" && text(declared.right)).toBe("x".repeat(LIMIT))
      const streamed = yield* read(post(chunked("ab", "cd")))
      expect(streamed._tag === "Right" && text(streamed.right)).toBe("abcd")
    }))

  it.effect("refuses a body over the limit: by its declared length, by counting, and one longer than it declared", () =>
    Effect.gen(function*() {
      for (
        const request of [
          post("x".repeat(LIMIT + 1), { "content-length": String(LIMIT + 1) }),
          post(chunked("x".repeat(40), "x".repeat(40))),
          // A Request built in code can declare less than it carries; the HTTP layer never hands one over.
          post("x".repeat(LIMIT * 4), { "content-length": "10" }),
          // A Content-Length that is not a length is not trusted: the body is counted as it is read.
          post(chunked("x".repeat(40), "x".repeat(40)), { "content-length": "ten" })
        ]
      ) {
        const result = yield* read(request)
        expect(result._tag === "Left" && result.left._tag).toBe("BodyTooLarge")
      }
    }))

  it.effect("answers the caller's error for a body that fails while read", () =>
    Effect.gen(function*() {
      const failing = () =>
        new ReadableStream<Uint8Array>({
          pull(controller) {
            controller.error(new Error("client went away"))
          }
        })
      for (const headers of [{}, { "content-length": "20" }]) {
        const result = yield* read(post(failing(), headers))
        expect(result._tag === "Left" && result.left._tag).toBe("Unreadable")
      }
    }))
})
