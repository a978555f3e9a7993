import { consoleJsonLogger } from "@hookgate/core"
import { Cause, Config, Context, Effect, FiberRef, FiberRefs, HashMap, Inspectable, Logger, Option, Tracer } from "effect"
import { TracingConfig, tracesUrl } from "./tracing.js"

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

/**
 * A line logged inside a span carries its `traceId` and `spanId` among the annotations, so a
 * log line leads to its trace. Used only while traces are exported (`OTEL_EXPORTER_OTLP_ENDPOINT`):
 * Effect's built-in tracer exports nowhere, and its ids would name nothing.
 */
export const withTraceIds = <A>(logger: Logger.Logger<A, void>): Logger.Logger<A, void> =>
  Logger.mapInputOptions(logger, (options) => {
    const span = Context.getOption(FiberRefs.getOrDefault(options.context, FiberRef.currentContext), Tracer.ParentSpan)
    return Option.isNone(span)
      ? options
      : { ...options, annotations: HashMap.set(HashMap.set(options.annotations, "traceId", span.value.traceId as unknown), "spanId", span.value.spanId as unknown) }
  })

/** Replaces Effect's default logger with the one `HOOKGATE_LOG_FORMAT` names (default json), with trace ids while traces are exported. */
export const layerLogger = Logger.replaceEffect(
  Logger.defaultLogger,
  Effect.zipWith(
    Config.literal("json", "pretty")("HOOKGATE_LOG_FORMAT").pipe(Config.withDefault("json" as const)),
    Effect.map(Effect.orElseSucceed(TracingConfig, () => undefined), (config) => config !== undefined && Option.isSome(tracesUrl(config))),
    (format, traced) => (traced ? withTraceIds(loggerFor(format)) : loggerFor(format))
  )
)

