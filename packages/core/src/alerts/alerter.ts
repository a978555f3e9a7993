import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Alert } from "./alert.js"
import type { AlertFailed } from "./errors.js"

/** Delivers one alert to the owner (an email, a POST, the log). */
export interface AlerterShape {
  readonly alert: (alert: Alert) => Effect.Effect<void, AlertFailed>
}

/** Tells the owner. Alerts are stored before the alerter runs, so a failing alerter loses nothing. */
export class Alerter extends Context.Tag("@hookgate/core/Alerter")<Alerter, AlerterShape>() {
  /** Writes each alert to the log at warning level. */
  static layerLog(): Layer.Layer<Alerter> {
    return Layer.succeed(Alerter, {
      alert: (alert) =>
        Effect.logWarning(`hookgate alert: ${alert.message}`).pipe(
          Effect.annotateLogs({ alertId: alert.id, kind: alert.kind, orderKey: alert.orderKey ?? "" })
        )
    })
  }
}
