import { describe, expect, it } from "@effect/vitest"
import { jsonLogger } from "@hookgate/core"
import { Cause, Effect, FiberId, HashMap, List, Logger, LogLevel, LogSpan, Redacted } from "effect"

// core's JSON logger must print exactly what Effect's `Logger.jsonLogger` prints for
// the same event: its fast path for primitive annotations, and everything else
// handed to Effect's. Both loggers see the same event (same date, fiber, spans).

const bothLines = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const ours: Array<string> = []
    const effects: Array<string> = []
    const loggers = bothLoggers(ours, effects)
    yield* effect.pipe(Effect.provide(loggers), Effect.ignore)
    return { ours, effects }
  })

const bothLoggers = (ours: Array<string>, effects: Array<string>) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.zip(
      Logger.map(jsonLogger, (line) => ours.push(line)),
      Logger.map(Logger.jsonLogger, (line) => effects.push(line))
    )
  )

describe("jsonLogger", () => {
  it.effect("prints the per-webhook line as Effect's JSON logger does, fields and spans included", () =>
    Effect.gen(function*() {
      const { effects, ours } = yield* bothLines(
        Effect.logInfo("webhook").pipe(
          Effect.annotateLogs({ provider: "stripe", outcome: "sent", orderKey: "stripe:cs_1", httpStatus: 200, durationMs: 3, uncertain: false, detail: null }),
          Effect.withLogSpan("request")
        )
      )
      expect(ours).toHaveLength(1)
      expect(ours).toEqual(effects)
      expect(JSON.parse(ours[0]!)).toMatchObject({
        message: "webhook",
        logLevel: "INFO",
        annotations: { provider: "stripe", outcome: "sent", orderKey: "stripe:cs_1", httpStatus: 200, uncertain: false, detail: null }
      })
    }))

  it.effect("strings that need escaping, a quote, a newline, non-ASCII, are escaped the same way", () =>
    Effect.gen(function*() {
      const { effects, ours } = yield* bothLines(
        Effect.logWarning("line\nbreak \"quoted\" ünïcode \u2028").pipe(Effect.annotateLogs("path", "/webhooks/a\r\nb"))
      )
      expect(ours).toEqual(effects)
      expect(ours[0]).not.toContain("\n")
    }))

  it.effect("every other line goes to Effect's logger: objects, a Redacted secret, several messages, a cause", () =>
    Effect.gen(function*() {
      const circular: Record<string, unknown> = { name: "loop" }
      circular.self = circular
      const { effects, ours } = yield* bothLines(Effect.all([
        Effect.logInfo("report").pipe(Effect.annotateLogs({ report: { sent: 2, failed: 0 }, circular })),
        Effect.logInfo("secret").pipe(Effect.annotateLogs("apiKey", Redacted.make("re_live_secret"))),
        Effect.logInfo("two", "messages"),
        Effect.logInfo({ structured: true }),
        Effect.logInfo(123n),
        Effect.logError("failed", Cause.fail(new Error("boom")))
      ]))
      expect(ours).toHaveLength(6)
      expect(ours).toEqual(effects)
      expect(ours.join("\n")).not.toContain("re_live_secret")
    }))

  it("names a fiber that is not a runtime fiber as Effect does", () => {
    const options = {
      fiberId: FiberId.combine(FiberId.make(3, 0), FiberId.make(4, 0)),
      logLevel: LogLevel.Info,
      message: ["composite"],
      cause: Cause.empty,
      context: undefined as never,
      spans: List.make(LogSpan.make("outer", 0)),
      annotations: HashMap.make(["a", 1]),
      date: new Date(10)
    }
    expect(jsonLogger.log(options)).toBe(Logger.jsonLogger.log(options))
  })
})
