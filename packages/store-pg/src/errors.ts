import { Schema } from "effect"

/**
 * The store could not reach Postgres when it started. `target` is host, port and
 * database only: the URL's password never appears in an error or a log.
 */
export class PgConnectionError extends Schema.TaggedError<PgConnectionError>()("PgConnectionError", {
  target: Schema.String,
  cause: Schema.Defect
}) {
  override get message() {
    return `could not connect to Postgres at ${this.target}`
  }
}

/** hookgate's migrations could not be applied; the failed migration's transaction left nothing behind. */
export class PgMigrationError extends Schema.TaggedError<PgMigrationError>()("PgMigrationError", {
  target: Schema.String,
  cause: Schema.Defect
}) {
  override get message() {
    return `hookgate migrations failed on Postgres at ${this.target}`
  }
}
