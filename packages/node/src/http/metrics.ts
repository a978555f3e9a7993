import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Context, Effect, Layer, Option, type Redacted } from "effect"
import { adminTokenGuard } from "@hookgate/core/http"
import { loadOptional, OPTIONAL_PACKAGES, type OptionalPackagesMissing } from "../optional-packages.js"
import { refreshStoreGauges } from "./store-gauges.js"

/**
 * `GET /metrics` in Prometheus text format (with `HOOKGATE_METRICS=prometheus`): Effect's
 * metrics reach an OpenTelemetry `PrometheusExporter` (used as a reader, not a server of its
 * own) through `@effect/opentelemetry`, and its serializer writes the text. Both are optional
 * peers, imported when the layer is built.
 */
export class PrometheusReader extends Context.Tag("@hookgate/node/PrometheusReader")<PrometheusReader, {
  /** Every metric of the process, in Prometheus text format, as it is now. */
  readonly text: Effect.Effect<string>
}>() {
  /** The exporter, with Effect's metrics wired to it; `OptionalPackagesMissing` when its packages are not installed. */
  static layer(): Layer.Layer<PrometheusReader, OptionalPackagesMissing> {
    return Layer.unwrapEffect(
      loadOptional("metrics (HOOKGATE_METRICS=prometheus)", OPTIONAL_PACKAGES.metrics, () =>
        Promise.all([
          import("@effect/opentelemetry/Metrics"),
          import("@effect/opentelemetry/Resource"),
          import("@opentelemetry/exporter-prometheus")
        ])).pipe(
          Effect.map(([OtelMetrics, OtelResource, { PrometheusExporter, PrometheusSerializer }]) => {
            const exporter = new PrometheusExporter({ preventServerStart: true })
            const serializer = new PrometheusSerializer()
            const text = Effect.map(Effect.promise(() => exporter.collect()), ({ resourceMetrics }) => serializer.serialize(resourceMetrics))
            return Layer.merge(
              Layer.succeed(PrometheusReader, { text }),
              OtelMetrics.layer(() => exporter).pipe(Layer.provide(OtelResource.layer({ serviceName: "hookgate" })))
            )
          })
        )
    )
  }
}

const metricsText = Effect.gen(function*() {
  yield* refreshStoreGauges
  const reader = yield* PrometheusReader
  return HttpServerResponse.text(yield* reader.text, { contentType: "text/plain; version=0.0.4; charset=utf-8" })
})

/** `GET /metrics`, open, or behind `Authorization: Bearer <token>` when a token is given (HOOKGATE_METRICS_TOKEN). */
export const metricsRoute = (token: Option.Option<Redacted.Redacted<string>> = Option.none()) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/metrics", Option.match(token, { onNone: () => metricsText, onSome: (t) => adminTokenGuard(t)(metricsText) }))
  )
