#!/usr/bin/env node
// Writes test/upgrade/fixtures/fdd4f77.db: a SQLite database written by the previous
// release (commit fdd4f77) through its own code, for test/upgrade/upgrade.test.ts.
//
//   node test/upgrade/generate-fixture.mjs [--work <dir>]
//
// It unpacks that commit (`git archive`, so no worktree is registered) into a work
// folder, installs its locked dependencies (`npm ci --ignore-scripts`, then the one
// native module it needs, better-sqlite3, copied from this checkout when the versions
// agree, else rebuilt), builds it (`tsc -b` of core and store-sqlite), and runs
// test/upgrade/drive-fdd4f77.mjs inside it, which drives the old pipeline, campaigns and
// alerts into every state the upgrade test checks. A work folder given with --work is
// kept and reused (the install and build are skipped once done).
import { execFileSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const RELEASE = "fdd4f77"
const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, "..", "..")
const out = join(here, "fixtures", `${RELEASE}.db`)

const workArg = process.argv.indexOf("--work")
const work = workArg > 0 ? process.argv[workArg + 1] : mkdtempSync(join(tmpdir(), `hookgate-${RELEASE}-`))
const keep = workArg > 0
const run = (command, args, cwd) => execFileSync(command, args, { cwd, stdio: "inherit" })

const betterSqliteVersion = (dir) => JSON.parse(readFileSync(join(dir, "node_modules", "better-sqlite3", "package.json"), "utf8")).version

try {
  if (!existsSync(join(work, ".built"))) {
    mkdirSync(work, { recursive: true })
    execFileSync("sh", ["-c", `git -C "${root}" archive ${RELEASE} | tar -x -C "${work}"`], { stdio: "inherit" })
    run("npm", ["ci", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"], work)
    const native = join("node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node")
    if (existsSync(join(root, native)) && betterSqliteVersion(root) === betterSqliteVersion(work)) {
      mkdirSync(dirname(join(work, native)), { recursive: true })
      copyFileSync(join(root, native), join(work, native))
    } else {
      run("npm", ["rebuild", "better-sqlite3"], work)
    }
    run("npx", ["tsc", "-b", "packages/core", "packages/store-sqlite"], work)
    writeFileSync(join(work, ".built"), "")
  }
  copyFileSync(join(here, "drive-fdd4f77.mjs"), join(work, "drive-fdd4f77.mjs"))
  mkdirSync(dirname(out), { recursive: true })
  rmSync(out, { force: true })
  run(process.execPath, [join(work, "drive-fdd4f77.mjs"), out], work)
  console.log(`wrote ${out}`)
} finally {
  if (!keep) rmSync(work, { recursive: true, force: true })
}
