import { SqlStore } from "@hookgate/store-sql"
import { SqliteFiles } from "@hookgate/store-sqlite/testing"
import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import { copyFileSync, existsSync, writeFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { baseEnv, REPOSITORY_ROOT, runCli, tempDir } from "./support/gateway-process.js"

/**
 * A database the gateway cannot use, met by the real `hookgate` command: each is
 * refused with one line naming the cause and what to do, exit code 1, no stack trace.
 */

const newest = SqlStore.migrations[SqlStore.migrations.length - 1]!

const envIn = (dir: string): Record<string, string> => ({ ...baseEnv(dir), HOOKGATE_DB_BUSY_TIMEOUT: "500 millis" })

/** A database made by this release's own CLI (migrated, then closed), once for the file. */
let made: Promise<string> | undefined
const madeByTheCli = () =>
  (made ??= (async () => {
    const env = envIn(tempDir())
    const result = await runCli(env, ["orders", "list"])
    expect(result.code, result.stderr).toBe(0)
    expect(existsSync(`${env.HOOKGATE_DB}-wal`)).toBe(false) // closed cleanly: the file alone is the database
    return env.HOOKGATE_DB!
  })())

/** A fresh copy of that database, for one test to spoil. */
const freshDatabase = async () => {
  const env = envIn(tempDir())
  copyFileSync(await madeByTheCli(), env.HOOKGATE_DB!)
  return { env, db: env.HOOKGATE_DB! }
}

/** The one refusal line: stderr is the banner naming the target, then `hookgate: <why>`, and nothing else. */
const refusal = (result: { code: number | null; stdout: string; stderr: string }) => {
  expect(result.code).toBe(1)
  const lines = result.stderr.trimEnd().split("\n")
  expect(result.stderr).not.toMatch(/^\s+at /m)
  expect(result.stderr).not.toContain("unexpected failure")
  expect(lines.filter((line) => line.startsWith("hookgate: "))).toHaveLength(1)
  return lines[lines.length - 1]!
}


/** Another process holding the file's lock (`BEGIN EXCLUSIVE`) until it is killed. */
const holdLock = async (filename: string) => {
  const script = `
    const Database = require("better-sqlite3")
    const db = new Database(${JSON.stringify(filename)})
    db.exec("BEGIN EXCLUSIVE")
    console.log("locked")
    setInterval(() => {}, 1000)
  `
  const child = spawn(process.execPath, ["-e", script], { cwd: REPOSITORY_ROOT, stdio: ["ignore", "pipe", "inherit"] })
  await new Promise<void>((resolve) => child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("locked") && resolve()))
  return { release: () => new Promise((resolve) => (child.on("exit", resolve), child.kill("SIGKILL"))) }
}

describe("hookgate on a database it cannot use", () => {
  it("a schema newer than this release: serve and orders list refuse, naming both versions and what to do", async () => {
    const { db, env } = await freshDatabase()
    const raw = new Database(db)
    raw.prepare("INSERT INTO hookgate_migrations (migration_id, name) VALUES (?, ?)").run(newest.id + 1, "from_a_newer_release")
    raw.close()
    for (const args of [["serve"], ["orders", "list"], ["alerts", "list"]]) {
      const line = refusal(await runCli(env, args))
      expect(line).toBe(
        `hookgate: the database's schema is at migration ${newest.id + 1} (from_a_newer_release), newer than this hookgate knows ` +
          `(migration ${newest.id}, ${newest.name}): a newer hookgate upgraded it. ` +
          `Upgrade hookgate to that release or later, or restore the backup taken before that upgrade`
      )
    }
  }, 120_000)

  it("a file whose lock another process holds (BEGIN EXCLUSIVE): serve refuses, naming the lock", async () => {
    const { db, env } = await freshDatabase()
    const holder = await holdLock(db)
    try {
      const line = refusal(await runCli(env, ["serve"]))
      expect(line).toContain(`hookgate: the SQLite database ${db} is locked by another process`)
      expect(line).toContain("500 ms")
    } finally {
      await holder.release()
    }
  }, 120_000)

  it("a torn page: serve refuses with PRAGMA integrity_check's words; a page torn where start-up does not read is named by orders list", async () => {
    const { db, env } = await freshDatabase()
    SqliteFiles.tearPage(db, "hookgate_migrations")
    const line = refusal(await runCli(env, ["serve"]))
    expect(line).toMatch(new RegExp(`^hookgate: the SQLite database ${db} is corrupt: PRAGMA integrity_check says: .+\\. Stop every process using it and restore it from a backup$`))
    expect(line).not.toContain("integrity_check says: ok")

    const other = await freshDatabase()
    const seeded = new Database(other.db)
    seeded.prepare(`INSERT INTO hookgate_orders (order_key, provider, event_id, event_type, email, product, amount, currency, metadata,
      payload_hash, status, attempts, next_attempt_at, uncertain, duplicates_prevented, possible_duplicates, leases_lost, created_at, updated_at)
      VALUES ('stripe:o1', 'stripe', 'evt_1', 'checkout.session.completed', 'a@example.com', NULL, 100, 'usd', '{}', 'h', 'sent', 0, 0, 0, 0, 0, 0, 1, 1)`).run()
    seeded.close()
    SqliteFiles.tearPage(other.db, "hookgate_orders")
    const listed = refusal(await runCli(other.env, ["orders", "list"]))
    expect(listed).toMatch(new RegExp(`^hookgate: the SQLite database ${other.db} is corrupt: PRAGMA integrity_check says: `))
  }, 120_000)

  it("a file that is not a database: serve refuses, naming it", async () => {
    const dir = tempDir()
    const env = baseEnv(dir)
    writeFileSync(env.HOOKGATE_DB!, "order_key,email\nstripe:o1,a@example.com\n".repeat(100))
    const line = refusal(await runCli(env, ["serve"]))
    expect(line).toBe(
      `hookgate: ${env.HOOKGATE_DB} is not a SQLite database (SQLite: file is not a database): ` +
        `point HOOKGATE_DB at hookgate's database file, or move this file away to start a new one`
    )
  }, 60_000)
})
