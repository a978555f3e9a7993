import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, HashMap, Logger } from "effect"
import { requestLog } from "../src/http/request-log.js"

// The gateway's request line: one per request that is not a webhook (a webhook logs its own).
const linesFor = (url: string, method = "GET") =>
  Effect.gen(function*() {
    const lines: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
    const logger = Logger.make(({ annotations, message }) => {
      lines.push({ message, annotations: Object.fromEntries(HashMap.toEntries(annotations)) })
    })
    const app = requestLog(Effect.succeed(HttpServerResponse.empty({ status: 204 })))
    const response = yield* app.pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(new Request(`http://gateway${url}`, { method }))),
      Effect.provide(Logger.replace(Logger.defaultLogger, logger))
    )
    return { status: response.status, lines }
  })

describe("request log", () => {
  it.effect("logs a request that is not a webhook: method, path without its query, status, duration", () =>
    Effect.gen(function*() {
      const { lines, status } = yield* linesFor("/admin/stats?token=secret")
      expect(status).toBe(204)
      expect(lines).toHaveLength(1)
      expect(lines[0]!.message).toEqual(["request"])
      expect(lines[0]!.annotations).toMatchObject({ method: "GET", path: "/admin/stats", httpStatus: 204 })
      expect(typeof lines[0]!.annotations.durationMs).toBe("number")
    }))

  it.effect("leaves a webhook to its own line", () =>
    Effect.gen(function*() {
      const { lines, status } = yield* linesFor("/webhooks/stripe", "POST")
      expect(status).toBe(204)
      expect(lines).toEqual([])
    }))
})
