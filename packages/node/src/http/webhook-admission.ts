import { HttpMiddleware, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Metric, Option } from "effect"
import { type AdmissionGate, type AdmissionOptions, makeAdmissionGate } from "./admission.js"

/**
 * The admission gate (`admission.ts`) in front of `POST /webhooks/…`: a webhook that gets no
 * slot within the wait is answered 503 `{ status: "unavailable", reason: "busy" }` with
 * `Retry-After`, before its body is read or anything is stored, so the provider sends it
 * again. Every other route (health, metrics, admin, console) passes by the gate.
 */

const refused = Metric.counter("hookgate_webhooks_refused_busy_total", {
  description: "Webhooks answered 503 busy: no slot came free within HOOKGATE_WEBHOOK_QUEUE_TIMEOUT (HOOKGATE_WEBHOOK_CONCURRENCY in flight)",
  incremental: true
})

/** `Retry-After` in whole seconds: the queue timeout, at least 1. */
export const retryAfterSeconds = (queueTimeout: Duration.DurationInput) =>
  Math.max(1, Math.ceil(Duration.toSeconds(Duration.decode(queueTimeout))))

const busyAnswer = (queueTimeout: Duration.DurationInput) => {
  const headers = { "retry-after": String(retryAfterSeconds(queueTimeout)) }
  return HttpServerResponse.unsafeJson({ status: "unavailable", reason: "busy" }, { status: 503, headers })
}

const isWebhook = (request: HttpServerRequest.HttpServerRequest) =>
  request.method === "POST" && request.url.startsWith("/webhooks/")

/**
 * The middleware around a gate. The first refusal of an overload is logged once (WARN,
 * with the load), not each one: under a flood one line per refused request would cost what
 * the gate saves; `hookgate_webhooks_refused_busy_total` counts them all. Once a webhook
 * is admitted with nobody left waiting, the next refusal is logged again.
 */
export const admissionMiddleware = (gate: AdmissionGate, options: AdmissionOptions) => {
  let overloaded = false
  const answer = busyAnswer(options.queueTimeout)
  const onRefused = Effect.zipRight(
    Metric.increment(refused),
    Effect.suspend(() => {
      if (overloaded) return Effect.void
      overloaded = true
      return Effect.flatMap(gate.load, (load) =>
        Effect.logWarning("webhooks refused: busy").pipe(
          Effect.annotateLogs({
            httpStatus: 503,
            inFlight: load.inFlight,
            waiting: load.waiting,
            concurrency: options.concurrency,
            queueTimeoutMs: Duration.toMillis(Duration.decode(options.queueTimeout))
          })
        ))
    })
  )
  // Admitted with nobody left waiting: the overload (if any) is over.
  const endOfOverload = Effect.map(gate.load, (load) => {
    if (load.waiting === 0) overloaded = false
  })
  return HttpMiddleware.make((app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      isWebhook(request)
        ? Effect.flatMap(
          gate.admit(Effect.zipRight(endOfOverload, app)),
          Option.match({ onNone: () => Effect.as(onRefused, answer), onSome: Effect.succeed })
        )
        : app)
  )
}

/** A fresh gate and its middleware, for one server. */
export const webhookAdmission = (options: AdmissionOptions) =>
  Effect.map(makeAdmissionGate(options), (gate) => admissionMiddleware(gate, options))
