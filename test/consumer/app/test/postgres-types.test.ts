// An app on Postgres type-checks as strictly as the rest (no skipLibCheck): the
// declarations of @hookgate/store-pg reach pg's types through @effect/sql-pg, so
// @types/pg comes with it.
import { PgStore } from "@hookgate/store-pg"
import { Redacted } from "effect"
import { expect, it } from "vitest"

it("names a Postgres target without its password", () => {
  const target = PgStore.describeTarget(Redacted.make("postgres://shop:s3cret@db.example:5432/shop"))
  expect(target).toContain("db.example")
  expect(target).not.toContain("s3cret")
})
