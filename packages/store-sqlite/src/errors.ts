import Database from "better-sqlite3"
import { Data } from "effect"

/**
 * Why a SQLite database cannot be used, named: each says what to do, in one line,
 * so the CLI prints it without a stack trace.
 */

/** Another connection (another process) held the write lock for the whole busy budget. */
export class SqliteLocked extends Data.TaggedError("SqliteLocked")<{
  readonly filename: string
  readonly waitedMs: number
}> {
  override get message() {
    return `the SQLite database ${this.filename} is locked by another process (its write lock was held for the ${this.waitedMs} ms waited): ` +
      `stop the process that holds it (another hookgate on this file, a backup, a sqlite3 shell with an open transaction), ` +
      `or wait longer (HOOKGATE_DB_BUSY_TIMEOUT)`
  }
}

/** A page of the file is damaged (SQLITE_CORRUPT); `integrityCheck` is what `PRAGMA integrity_check` answered. */
export class SqliteCorrupt extends Data.TaggedError("SqliteCorrupt")<{
  readonly filename: string
  readonly integrityCheck: ReadonlyArray<string>
}> {
  override get message() {
    const shown = this.integrityCheck.slice(0, 3).join("; ")
    const more = this.integrityCheck.length > 3 ? ` (and ${this.integrityCheck.length - 3} more)` : ""
    return `the SQLite database ${this.filename} is corrupt: PRAGMA integrity_check says: ${shown}${more}. ` +
      `Stop every process using it and restore it from a backup`
  }
}

/** The file exists but is not a SQLite database (SQLITE_NOTADB). */
export class SqliteNotADatabase extends Data.TaggedError("SqliteNotADatabase")<{
  readonly filename: string
}> {
  override get message() {
    return `${this.filename} is not a SQLite database (SQLite: file is not a database): ` +
      `point HOOKGATE_DB at hookgate's database file, or move this file away to start a new one`
  }
}

/** The SQLite result code (`SQLITE_BUSY`, `SQLITE_CORRUPT_…`) somewhere along an error's causes. */
export const sqliteCode = (error: unknown): string | undefined => {
  let current = error
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string" && code.startsWith("SQLITE_")) return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/** What `PRAGMA integrity_check` says of the file, on a connection of its own (read-only). */
export const integrityCheck = (filename: string): ReadonlyArray<string> => {
  try {
    const db = new Database(filename, { readonly: true, fileMustExist: true })
    try {
      const rows = db.pragma("integrity_check") as ReadonlyArray<Record<string, unknown>>
      return rows.map((row) => String(Object.values(row)[0]))
    } finally {
      db.close()
    }
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)]
  }
}

/**
 * The named error for a failure of the store on `filename` whose cause is a lock held
 * elsewhere, a damaged page or a file that is not a database; undefined for any other.
 */
export const explainSqliteFailure = (
  filename: string,
  options: { readonly waitedMs: number }
) =>
(error: unknown): SqliteLocked | SqliteCorrupt | SqliteNotADatabase | undefined => {
  const code = sqliteCode(error)
  if (code === undefined) return undefined
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return new SqliteLocked({ filename, waitedMs: options.waitedMs })
  if (code === "SQLITE_NOTADB") return new SqliteNotADatabase({ filename })
  if (code.startsWith("SQLITE_CORRUPT")) return new SqliteCorrupt({ filename, integrityCheck: integrityCheck(filename) })
  return undefined
}
