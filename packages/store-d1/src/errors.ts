import * as Schema from "effect/Schema"

/** A migration could not be applied to D1; nothing of that migration was kept (it ran as one batch). */
export class D1MigrationError extends Schema.TaggedError<D1MigrationError>()("D1MigrationError", {
  migration: Schema.String,
  cause: Schema.Defect
}) {
  override get message() {
    return `D1 migration ${this.migration} failed`
  }
}
