import { FetchHttpClient } from "@effect/platform"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import { Config, type ConfigError, Effect, Layer, Option } from "effect"

/**
 * OpenTelemetry's standard variables: `OTEL_EXPORTER_OTLP_ENDPOINT` (the collector's base URL;
 * traces go to `<endpoint>/v1/traces`), or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the full
 * URL), and `OTEL_SERVICE_NAME` (default `hookgate`).
 * https://opentelemetry.io/docs/specs/otel/protocol/exporter/
 */
export const TracingConfig = Config.all({
  endpoint: Config.option(Config.nonEmptyString("OTEL_EXPORTER_OTLP_ENDPOINT")),
  tracesEndpoint: Config.option(Config.nonEmptyString("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")),
  serviceName: Config.withDefault(Config.nonEmptyString("OTEL_SERVICE_NAME"), "hookgate")
})

/** Where traces go, when a variable names it. */
export const tracesUrl = (config: typeof TracingConfig extends Config.Config<infer A> ? A : never): Option.Option<string> =>
  Option.orElse(config.tracesEndpoint, () => Option.map(config.endpoint, (base) => `${base.replace(/\/+$/, "")}/v1/traces`))

/**
 * Traces over OTLP/HTTP (JSON) through `@effect/opentelemetry`'s own exporter (no OpenTelemetry
 * SDK), when an endpoint is set: every request's server span, hookgate's spans under it, and
 * the mailer's HTTP call as a client span carrying W3C `traceparent`. Without an endpoint this
 * layer is empty: Effect's built-in tracer stays, `tracingEnabled` is false, no span is made.
 */
export const tracingLayer: Layer.Layer<never, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.map(TracingConfig, (config) =>
    Option.match(tracesUrl(config), {
      onNone: () => Layer.empty,
      onSome: (url) =>
        OtlpTracer.layer({ url, resource: { serviceName: config.serviceName }, exportInterval: "1 second" }).pipe(
          Layer.provide(OtlpSerialization.layerJson),
          Layer.provide(FetchHttpClient.layer)
        )
    }))
)
