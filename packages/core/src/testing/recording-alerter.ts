import { Context, Effect, Layer, Ref } from "effect"
import type { Alert } from "../alerts/alert.js"
import { AlertFailed } from "../alerts/errors.js"
import { Alerter } from "../alerts/alerter.js"

export interface RecordingAlerterShape {
  /** Alerts the alerter was asked to deliver (including failed attempts). */
  readonly attempts: Effect.Effect<ReadonlyArray<Alert>>
}

/** An alerter that records every alert; with `failing`, every attempt fails after being recorded. */
export class RecordingAlerter extends Context.Tag("@hookgate/core/testing/RecordingAlerter")<
  RecordingAlerter,
  RecordingAlerterShape
>() {
  static layer(options: { readonly failing?: boolean } = {}): Layer.Layer<Alerter | RecordingAlerter> {
    return Layer.effectContext(
      Effect.map(Ref.make<ReadonlyArray<Alert>>([]), (ref) =>
        Context.make(RecordingAlerter, { attempts: Ref.get(ref) }).pipe(
          Context.add(Alerter, {
            alert: (alert) =>
              Effect.zipRight(
                Ref.update(ref, (list) => [...list, alert]),
                options.failing ? Effect.fail(new AlertFailed({ detail: "alert channel is down" })) : Effect.void
              )
          })
        ))
    )
  }
}
