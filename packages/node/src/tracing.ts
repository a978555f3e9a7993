import { FetchHttpClient, HttpClient, HttpMiddleware } from "@effect/platform"
import { tracingEnabled } from "@hookgate/core"
import { Config, type ConfigError, Effect, Layer, Option } from "effect"
import { constTrue } from "effect/Function"
import { loadOptional, OPTIONAL_PACKAGES, type OptionalPackagesMissing } from "./optional-packages.js"

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
 * @effect/platform's `http.server` span of every request and `http.client` span of every
 * mailer call, turned off while no tracer would receive them: under Effect's built-in tracer
 * they export nowhere, yet each one parses the URL and copies every header into attributes
 * (a measurable share of a webhook's CPU). A tracer installed around the gateway (its own
 * layer, or OTLP below) keeps them.
 */
const untracedHttp: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.withFiberRuntime((fiber) =>
    Effect.succeed(
      tracingEnabled(fiber)
        ? Layer.empty
        : Layer.mergeAll(
          Layer.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, constTrue),
          Layer.locallyScoped(HttpClient.currentTracerDisabledWhen, constTrue)
        )
    )
  )
)

/**
 * Traces over OTLP/HTTP (JSON) through `@effect/opentelemetry`'s own exporter (no OpenTelemetry
 * SDK), when an endpoint is set: every request's server span, hookgate's spans under it, and
 * the mailer's HTTP call as a client span carrying W3C `traceparent`. Without an endpoint
 * Effect's built-in tracer stays, `tracingEnabled` is false, and no span is made: neither
 * hookgate's nor @effect/platform's HTTP spans. `@effect/opentelemetry` is an optional peer,
 * imported only when an endpoint is set; missing, the layer fails with `OptionalPackagesMissing`.
 */
export const tracingLayer: Layer.Layer<never, ConfigError.ConfigError | OptionalPackagesMissing> = Layer.unwrapEffect(
  Effect.flatMap(TracingConfig, (config) =>
    Option.match(tracesUrl(config), {
      onNone: () => Effect.succeed(untracedHttp),
      onSome: (url) =>
        loadOptional(
          "traces (OTEL_EXPORTER_OTLP_ENDPOINT)",
          OPTIONAL_PACKAGES.tracing,
          () => Promise.all([import("@effect/opentelemetry/OtlpTracer"), import("@effect/opentelemetry/OtlpSerialization")])
        ).pipe(Effect.map(([OtlpTracer, OtlpSerialization]) =>
          OtlpTracer.layer({ url, resource: { serviceName: config.serviceName }, exportInterval: "1 second" }).pipe(
            Layer.provide(OtlpSerialization.layerJson),
            Layer.provide(FetchHttpClient.layer)
          )
        ))
    }))
)
