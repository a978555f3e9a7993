import * as OtelMetrics from "@effect/opentelemetry/Metrics"
import * as OtelResource from "@effect/opentelemetry/Resource"
import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import { Context, Effect, Layer, Option, type Redacted } from "effect"
import { adminTokenGuard } from "@hookgate/core/http"
import { refreshStoreGauges } from "./store-gauges.js"

/**
 * `GET /metrics` in Prometheus text format: Effect's metrics reach an
 * OpenTelemetry `PrometheusExporter` (used as a reader, not a server of its
 * own) through `@effect/opentelemetry`, and its serializer writes the text.
 */
export class PrometheusReader extends Context.Tag("@hookgate/node/PrometheusReader")<PrometheusReader, PrometheusExporter>() {
  /** The exporter, with Effect's metrics wired to it. */
  static layer(): Layer.Layer<PrometheusReader> {
    return Layer.unwrapEffect(
      Effect.sync(() => {
        const exporter = new PrometheusExporter({ preventServerStart: true })
        return Layer.merge(
          Layer.succeed(PrometheusReader, exporter),
          OtelMetrics.layer(() => exporter).pipe(Layer.provide(OtelResource.layer({ serviceName: "hookgate" })))
        )
      })
    )
  }
}

const serializer = new PrometheusSerializer()

const metricsText = Effect.gen(function*() {
  yield* refreshStoreGauges
  const reader = yield* PrometheusReader
  const { resourceMetrics } = yield* Effect.promise(() => reader.collect())
  return HttpServerResponse.text(serializer.serialize(resourceMetrics), {
    contentType: "text/plain; version=0.0.4; charset=utf-8"
  })
})

/** `GET /metrics`, open, or behind `Authorization: Bearer <token>` when a token is given (HOOKGATE_METRICS_TOKEN). */
export const metricsRoute = (token: Option.Option<Redacted.Redacted<string>> = Option.none()) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/metrics", Option.match(token, { onNone: () => metricsText, onSome: (t) => adminTokenGuard(t)(metricsText) }))
  )
