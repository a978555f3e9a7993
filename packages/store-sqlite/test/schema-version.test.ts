import { it } from "@effect/vitest"
import { SchemaTooNew, SqlStore } from "@hookgate/store-sql"
import { SqliteStore } from "@hookgate/store-sqlite"
import Database from "better-sqlite3"
import { Cause, Effect, Exit, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "vitest"

const build = (filename: string) => Layer.build(SqliteStore.layer({ filename })).pipe(Effect.scoped, Effect.exit)
const newest = SqlStore.migrations[SqlStore.migrations.length - 1]!

it.effect("a file whose schema is newer than this release knows is refused, naming both versions and what to do", () =>
  Effect.gen(function*() {
    const filename = join(mkdtempSync(join(tmpdir(), "hookgate-schema-")), "hookgate.db")
    expect(Exit.isSuccess(yield* build(filename))).toBe(true)
    // What a newer release leaves behind: one more migration recorded (and whatever it changed).
    const db = new Database(filename)
    db.prepare("INSERT INTO hookgate_migrations (migration_id, name) VALUES (?, ?)").run(newest.id + 1, "from_a_newer_release")
    db.close()
    const exit = yield* build(filename)
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isSuccess(exit)) return
    // A typed failure, not a defect: the CLI prints its message as one line.
    expect(Cause.isDie(exit.cause)).toBe(false)
    const error = Cause.squash(exit.cause)
    expect(error).toBeInstanceOf(SchemaTooNew)
    expect(error).toMatchObject({
      found: { id: newest.id + 1, name: "from_a_newer_release" },
      known: { id: newest.id, name: newest.name }
    })
    const message = (error as Error).message
    expect(message).toContain(`migration ${newest.id + 1} (from_a_newer_release)`)
    expect(message).toContain(`migration ${newest.id}, ${newest.name}`)
    expect(message).toMatch(/upgrade hookgate/i)
    expect(message).toMatch(/restore the backup/)
    expect(message).not.toContain("\n")
  }))

it.effect("a file at this release's schema, or an older one, starts", () =>
  Effect.gen(function*() {
    const filename = join(mkdtempSync(join(tmpdir(), "hookgate-schema-")), "hookgate.db")
    expect(Exit.isSuccess(yield* build(filename))).toBe(true)
    expect(Exit.isSuccess(yield* build(filename))).toBe(true)
  }))
