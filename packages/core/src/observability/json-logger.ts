import * as FiberId from "effect/FiberId"
import * as Logger from "effect/Logger"

/**
 * Effect's `Logger.jsonLogger`, byte for byte, with a fast path for the common
 * line: a string message, no cause and annotations that are strings, numbers,
 * booleans or null (the per-webhook line). Such a line cannot hold a circular
 * reference or a `Redacted`, so it is stringified by `JSON.stringify` alone,
 * without the circular-safe replacer that `Logger.jsonLogger` runs on every
 * value, nor Effect's general fiber-name formatting; any other line goes to
 * `Logger.jsonLogger` itself. Profiled on the Worker bundle, this takes some 40%
 * off the per-webhook log call (the runtime's own `console.log` remains).
 */
export const jsonLogger: Logger.Logger<unknown, string> = Logger.make((options) => {
  const { annotations, cause, date, fiberId, logLevel, spans } = options
  // `Effect.log("text")` passes its messages as an array: `["text"]`.
  const message = Array.isArray(options.message) && options.message.length === 1 ? options.message[0] : options.message
  if (typeof message !== "string" || cause._tag !== "Empty") return Logger.jsonLogger.log(options)
  const annotationsObj: Record<string, string | number | boolean | null> = {}
  for (const [key, value] of annotations) {
    if (value !== null && typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      return Logger.jsonLogger.log(options)
    }
    annotationsObj[key] = value
  }
  const now = date.getTime()
  const spansObj: Record<string, number> = {}
  for (const span of spans) spansObj[span.label] = now - span.startTime
  return JSON.stringify({
    message,
    logLevel: logLevel.label,
    timestamp: date.toISOString(),
    annotations: annotationsObj,
    spans: spansObj,
    fiberId: fiberId._tag === "Runtime" ? `#${fiberId.id}` : FiberId.threadName(fiberId)
  })
})

/** `jsonLogger` on the console, one line per event: what `Logger.json` installs, faster. */
export const consoleJsonLogger: Logger.Logger<unknown, void> = Logger.withConsoleLog(jsonLogger)
