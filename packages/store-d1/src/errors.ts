import * as Data from "effect/Data"

/** A migration could not be applied to D1; nothing of that migration was kept (it ran as one batch). */
export class D1MigrationError extends Data.TaggedError("D1MigrationError")<{
  readonly migration: string
  readonly cause: unknown
}> {
  override get message() {
    return `D1 migration ${this.migration} failed`
  }
}
