import { type Alert, AlertFailed, type AlerterShape } from "@hookgate/core/alerts"
import * as Effect from "effect/Effect"

/**
 * Several alerters as one: every channel is attempted, at once. It fails when
 * any channel failed (so the stored alert shows it), naming which channels
 * failed and how many delivered.
 */
export const fanOut = (channels: Readonly<Record<string, AlerterShape>>): AlerterShape => ({
  alert: (alert: Alert) =>
    Effect.forEach(
      Object.entries(channels),
      ([name, channel]) => Effect.map(Effect.either(channel.alert(alert)), (result) => [name, result] as const),
      { concurrency: "unbounded" }
    ).pipe(
      Effect.flatMap((results) => {
        const failed = results.filter(([, result]) => result._tag === "Left")
        if (failed.length === 0) return Effect.void
        const details = failed.map(([name, result]) => `${name}: ${result._tag === "Left" ? result.left.detail : ""}`)
        return Effect.fail(
          new AlertFailed({ detail: `${details.join("; ")} (${results.length - failed.length} of ${results.length} delivered)` })
        )
      })
    )
})
