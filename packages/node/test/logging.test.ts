import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { vi } from "vitest"
import { loggerFor } from "../src/logging.js"

const capture = (format: "json" | "pretty") =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const spy = vi.spyOn(globalThis.console, "log").mockImplementation((...args: Array<unknown>) => void lines.push(args.join(" ")))
    yield* Effect.logWarning("request\nforged line").pipe(
      Effect.annotateLogs({ path: "/webhooks/x\n{\"level\":\"ERROR\",\"message\":\"forged\"}", httpStatus: 404 }),
      Effect.provide(Logger.replace(Logger.defaultLogger, loggerFor(format)))
    )
    spy.mockRestore()
    return lines.join("\n")
  })

describe("log formats", () => {
  it.effect("json: one object per line, user strings escaped", () =>
    Effect.gen(function*() {
      const out = yield* capture("json")
      expect(out.split("\n")).toHaveLength(1)
      expect(JSON.parse(out).annotations.path).toContain("\n{")
    }))

  it.effect("pretty: one readable line per event, newlines escaped", () =>
    Effect.gen(function*() {
      const out = yield* capture("pretty")
      expect(out.split("\n")).toHaveLength(1)
      expect(out).toMatch(/ WARN  request\\nforged line path="\/webhooks\/x\\n\{\\"level\\"/)
      expect(out).toContain("httpStatus=404")
    }))
})
