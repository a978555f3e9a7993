import Database from "better-sqlite3"
import { closeSync, openSync, writeSync } from "node:fs"

/**
 * Overwrites the first page of `table`'s b-tree in a closed database file with garbage, as
 * a torn write (power lost mid-page) would leave it: SQLite then answers SQLITE_CORRUPT
 * when a statement reads that page.
 */
export const tearPage = (filename: string, table: string): void => {
  const db = new Database(filename)
  const pageSize = db.pragma("page_size", { simple: true }) as number
  const row = db.prepare("SELECT rootpage FROM sqlite_master WHERE name = ?").get(table) as { rootpage: number } | undefined
  db.close()
  if (row === undefined) throw new Error(`no table ${table} in ${filename}`)
  const fd = openSync(filename, "r+")
  try {
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (row.rootpage - 1) * pageSize)
  } finally {
    closeSync(fd)
  }
}
