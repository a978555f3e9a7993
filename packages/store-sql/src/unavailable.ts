import type { SqlError } from "@effect/sql/SqlError"
import { StoreUnavailable } from "@hookgate/core"
import * as Effect from "effect/Effect"

/** Maps a statement's `SqlError` to the ports' `StoreUnavailable`, naming the operation. */
export const unavailable = (operation: string) => <A, R>(effect: Effect.Effect<A, SqlError, R>) =>
  Effect.mapError(effect, (cause) => new StoreUnavailable({ operation, cause }))
