import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { it } from "@effect/vitest"
import { SqliteStore } from "@hookgate/store-sqlite"
import { SqliteFiles } from "@hookgate/store-sqlite/testing"
import Database from "better-sqlite3"
import { Cause, Effect, Exit, Layer } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "vitest"

const build = (filename: string, busyTimeoutMs?: number) =>
  Layer.build(SqliteStore.layer({ filename, ...(busyTimeoutMs === undefined ? {} : { busyTimeoutMs }) })).pipe(Effect.scoped, Effect.exit)

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

/** A database this release created and closed (so its WAL is checkpointed into the file). */
const migratedFile = () =>
  Effect.gen(function*() {
    const filename = join(mkdtempSync(join(tmpdir(), "hookgate-open-")), "hookgate.db")
    expect(Exit.isSuccess(yield* build(filename))).toBe(true)
    return filename
  })


it.live("a file whose write lock another connection holds (BEGIN EXCLUSIVE) for the whole wait fails with SqliteLocked naming it", () =>
  Effect.gen(function*() {
    const filename = yield* migratedFile()
    const holder = new Database(filename)
    holder.exec("BEGIN EXCLUSIVE")
    try {
      const error = failure(yield* build(filename, 300))
      expect(error).toBeInstanceOf(SqliteStore.SqliteLocked)
      expect((error as Error).message).toBe(new SqliteStore.SqliteLocked({ filename, waitedMs: 300 }).message)
      expect((error as Error).message).toContain(`${filename} is locked by another process`)
    } finally {
      holder.exec("ROLLBACK")
      holder.close()
    }
    // Once the lock is released the file opens.
    expect(Exit.isSuccess(yield* build(filename, 300))).toBe(true)
  }))

it.live("a new file whose lock another connection holds before it is WAL fails with SqliteLocked too", () =>
  Effect.gen(function*() {
    const filename = join(mkdtempSync(join(tmpdir(), "hookgate-open-")), "hookgate.db")
    const holder = new Database(filename, { timeout: 0 })
    holder.exec("BEGIN EXCLUSIVE")
    try {
      expect(failure(yield* build(filename, 300))).toBeInstanceOf(SqliteStore.SqliteLocked)
    } finally {
      holder.exec("ROLLBACK")
      holder.close()
    }
  }))

it.effect("a file with a torn page fails with SqliteCorrupt quoting PRAGMA integrity_check", () =>
  Effect.gen(function*() {
    const filename = yield* migratedFile()
    SqliteFiles.tearPage(filename, "hookgate_migrations")
    const error = failure(yield* build(filename))
    expect(error).toBeInstanceOf(SqliteStore.SqliteCorrupt)
    const corrupt = error as InstanceType<typeof SqliteStore.SqliteCorrupt>
    expect(corrupt.integrityCheck.length).toBeGreaterThan(0)
    expect(corrupt.integrityCheck).not.toEqual(["ok"])
    expect(corrupt.message).toContain(`${filename} is corrupt: PRAGMA integrity_check says: ${corrupt.integrityCheck[0]}`)
    expect(corrupt.message).not.toContain("\n")
  }))

it.effect("a file that is not a database fails with SqliteNotADatabase naming it", () =>
  Effect.gen(function*() {
    const filename = join(mkdtempSync(join(tmpdir(), "hookgate-open-")), "notes.txt")
    writeFileSync(filename, "these are not the tables you are looking for\n".repeat(200))
    const error = failure(yield* build(filename))
    expect(error).toBeInstanceOf(SqliteStore.SqliteNotADatabase)
    expect((error as Error).message).toContain(`${filename} is not a SQLite database`)
  }))

it.live("a transaction whose BEGIN waits out another connection's lock fails with its SqlError (busy), not a defect from the rollback", () =>
  Effect.gen(function*() {
    const filename = yield* migratedFile()
    const exit = yield* Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const holder = new Database(filename)
      holder.exec("BEGIN EXCLUSIVE")
      const exit = yield* Effect.exit(sql.withTransaction(sql`SELECT 1`))
      holder.exec("ROLLBACK")
      holder.close()
      return exit
    }).pipe(Effect.provide(SqliteStore.layer({ filename, busyTimeoutMs: 200 })))
    // The transaction's BEGIN IMMEDIATE is refused busy; there was nothing to roll back.
    const error = failure(exit)
    expect(error).toBeInstanceOf(SqlError)
    expect((error as SqlError).cause).toMatchObject({ code: "SQLITE_BUSY" })
  }))
