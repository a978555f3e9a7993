import { SqlError } from "@effect/sql/SqlError"
import { it } from "@effect/vitest"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Cause, Effect, Exit, Layer } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "vitest"

const build = (filename: string) => Layer.build(SqliteStore.layer({ filename })).pipe(Effect.scoped, Effect.exit)

const failure = (exit: Exit.Exit<unknown, unknown>) => {
  expect(Exit.isFailure(exit)).toBe(true)
  if (Exit.isSuccess(exit)) throw new Error("unreachable")
  // A typed failure, not a defect: the CLI prints its message instead of "unexpected failure" and a stack.
  expect(Cause.isDieType(exit.cause)).toBe(false)
  return Cause.squash(exit.cause)
}

it.effect("a database whose folder cannot be created fails with a SqlError naming the file", () =>
  Effect.gen(function*() {
    const dir = mkdtempSync(join(tmpdir(), "hookgate-open-"))
    const aFile = join(dir, "not-a-folder")
    writeFileSync(aFile, "")
    const error = failure(yield* build(join(aFile, "hookgate.db")))
    expect(error).toBeInstanceOf(SqlError)
    expect((error as SqlError).message).toContain(join(aFile, "hookgate.db"))
  }))

it.effect("a database path that is a folder fails with a SqlError naming it (better-sqlite3 throws from its constructor)", () =>
  Effect.gen(function*() {
    const dir = mkdtempSync(join(tmpdir(), "hookgate-open-"))
    const error = failure(yield* build(dir))
    expect(error).toBeInstanceOf(SqlError)
    expect((error as SqlError).message).toMatch(/cannot open the SQLite database .*hookgate-open-/)
  }))
