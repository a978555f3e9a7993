import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { DeadLetter } from "./message.js"
import type { StoreUnavailable } from "../kernel/store-errors.js"

/** Keeps the messages a queue gave up on, once per (queue, message id). */
export interface DeadLetterStoreShape {
  /**
   * Keeps a dead letter (once per queue and message id) and answers how many
   * letters that queue now holds.
   */
  readonly put: (letter: DeadLetter) => Effect.Effect<number, StoreUnavailable>
  /** Newest first. */
  readonly list: (
    options: { readonly queue?: string | undefined; readonly limit: number }
  ) => Effect.Effect<ReadonlyArray<DeadLetter>, StoreUnavailable>
}

/** Where messages that a queue gave up on are kept for the operator. */
export class DeadLetterStore extends Context.Tag("@hookgate/core/DeadLetterStore")<DeadLetterStore, DeadLetterStoreShape>() {}
