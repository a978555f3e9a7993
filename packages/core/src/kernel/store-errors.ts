import * as Data from "effect/Data"

/**
 * The store could not be reached or failed (503 `unavailable`; the provider
 * retries). Every store port fails with it alone: orders, alerts, the ledgers.
 */
export class StoreUnavailable extends Data.TaggedError("StoreUnavailable")<{
  readonly operation: string
  readonly cause?: unknown | undefined
}> {
  override get message() {
    return `order store unavailable during ${this.operation}`
  }
}
