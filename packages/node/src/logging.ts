import { consoleJsonLogger } from "@hookgate/core"
import { Cause, Config, Effect, HashMap, Inspectable, Logger } from "effect"

/**
 * The gateway's one logger, on stdout: `json` prints exactly one JSON object
 * per line (the default, for log collectors); `pretty` prints one readable line
 * per event for a human. In both, every string that came from outside (paths,
 * provider names, order ids, error messages) is escaped, so a request cannot
 * forge a log line with an encoded newline.
 */

/** A string as a JSON string literal without its quotes: newlines and other control characters escaped. */
const escapeText = (text: string) => JSON.stringify(text).slice(1, -1)

const prettyValue = (value: unknown) =>
  typeof value === "string" ? JSON.stringify(value) : escapeText(Inspectable.stringifyCircular(value))

const prettyLogger = Logger.make(({ annotations, cause, date, logLevel, message }) => {
  const messages = (Array.isArray(message) ? message : [message]).map((m) =>
    typeof m === "string" ? escapeText(m) : escapeText(Inspectable.stringifyCircular(m)))
  const fields = Array.from(HashMap.toEntries(annotations), ([key, value]) => `${escapeText(key)}=${prettyValue(value)}`)
  const failure = Cause.isEmpty(cause) ? [] : [`cause=${JSON.stringify(Cause.pretty(cause))}`]
  globalThis.console.log([date.toISOString(), logLevel.label.padEnd(5), ...messages, ...fields, ...failure].join(" "))
})

export type LogFormat = "json" | "pretty"

export const loggerFor = (format: LogFormat): Logger.Logger<unknown, void> =>
  format === "json" ? consoleJsonLogger : prettyLogger

/** Replaces Effect's default logger with the one `HOOKGATE_LOG_FORMAT` names (default json). */
export const layerLogger = Logger.replaceEffect(
  Logger.defaultLogger,
  Effect.map(
    Config.literal("json", "pretty")("HOOKGATE_LOG_FORMAT").pipe(Config.withDefault("json" as const)),
    loggerFor
  )
)

