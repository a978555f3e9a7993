import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { Alerter, AlertFailed } from "@hookgate/core/alerts"
import type { Alert } from "@hookgate/core/alerts"

export interface RecordingAlerterShape {
  /** Alerts the alerter was asked to deliver (including failed attempts). */
  readonly attempts: Effect.Effect<ReadonlyArray<Alert>>
  /** Makes later attempts fail (the channel is down) or succeed. */
  readonly setFailing: (failing: boolean) => Effect.Effect<void>
}

/** An alerter that records every alert; while `failing`, every attempt fails after being recorded. */
export class RecordingAlerter extends Context.Tag("@hookgate/testing/RecordingAlerter")<
  RecordingAlerter,
  RecordingAlerterShape
>() {
  static layer(options: { readonly failing?: boolean } = {}): Layer.Layer<Alerter | RecordingAlerter> {
    return Layer.effectContext(
      Effect.map(Effect.all([Ref.make<ReadonlyArray<Alert>>([]), Ref.make(options.failing ?? false)]), ([ref, failing]) =>
        Context.make(RecordingAlerter, { attempts: Ref.get(ref), setFailing: (value) => Ref.set(failing, value) }).pipe(
          Context.add(Alerter, {
            alert: (alert) =>
              Effect.zipRight(
                Ref.update(ref, (list) => [...list, alert]),
                Effect.flatMap(Ref.get(failing), (down) =>
                  down ? Effect.fail(new AlertFailed({ detail: "alert channel is down" })) : Effect.void)
              )
          })
        ))
    )
  }
}
