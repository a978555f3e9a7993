#!/usr/bin/env node
// `npm run install-size [-- [--keep] [@hookgate/name ...]]`: what installing hookgate costs a
// user, measured the way they would install it. Packs every package with
// scripts/pack-release.mjs into a temporary folder, runs the `npm install` line it prints
// (for @hookgate/node by default) in an empty project there, and prints the disk use (`du`)
// of its node_modules: in total, per scope and per top-level package. Run after a build
// (`npm run install-size` builds first).
//
// Install scripts are skipped (`--ignore-scripts`, as test/consumer does): better-sqlite3's
// native addon (about 2 MB once built) is left out of the figure. The npm cache serves the
// registry's packages when it has them (`--prefer-offline`).
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const repo = dirname(dirname(fileURLToPath(import.meta.url)))
const usage = "usage: npm run install-size -- [--keep] [@hookgate/name ...]"
const args = process.argv.slice(2)
const keep = args.includes("--keep")
const named = args.filter((arg) => arg !== "--keep")
if (named.some((name) => !name.startsWith("@hookgate/"))) {
  console.error(usage)
  process.exit(2)
}
const packages = named.length > 0 ? named : ["@hookgate/node"]

const scratch = mkdtempSync(join(tmpdir(), "hookgate-install-size-"))
const project = join(scratch, "project")
try {
  const printed = execFileSync(process.execPath, [join(repo, "scripts/pack-release.mjs"), "--out", join(scratch, "release"), ...packages], {
    cwd: repo,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"]
  })
  const line = printed.split("\n").map((l) => l.trim()).find((l) => l.startsWith("npm install "))
  if (line === undefined) throw new Error(`pack-release printed no install line:\n${printed}`)
  // pack-release quotes only words with unusual characters; tarball paths under the temp dir have none.
  const [, ...installArgs] = line.split(/\s+/)

  execFileSync("mkdir", [project])
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "install-size", private: true }, null, 2))
  execFileSync("npm", [...installArgs, "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: project,
    stdio: ["ignore", "ignore", "inherit"]
  })

  const modules = join(project, "node_modules")
  /** Disk use in kB, as `du -sk` counts it. */
  const du = (path) => Number(execFileSync("du", ["-sk", path], { encoding: "utf8" }).split("\t")[0])
  const topLevel = readdirSync(modules, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
    .flatMap((entry) =>
      entry.name.startsWith("@")
        ? readdirSync(join(modules, entry.name)).map((name) => `${entry.name}/${name}`)
        : [entry.name]
    )
    .map((name) => ({ name, kb: du(join(modules, name)) }))
    .sort((a, b) => b.kb - a.kb || a.name.localeCompare(b.name))

  const mb = (kb) => `${(kb / 1024).toFixed(1)} MB`.padStart(9)
  const byScope = new Map()
  for (const { name, kb } of topLevel) {
    const scope = name.startsWith("@") ? `${name.split("/")[0]}/*` : "(unscoped)"
    byScope.set(scope, (byScope.get(scope) ?? 0) + kb)
  }
  console.log(`npm install ${packages.join(" ")} (from the tarballs): node_modules ${mb(du(modules)).trim()}, ${topLevel.length} packages`)
  console.log("\nper scope:")
  for (const [scope, kb] of [...byScope].sort((a, b) => b[1] - a[1])) console.log(`${mb(kb)}  ${scope}`)
  console.log("\nper top-level package:")
  for (const { name, kb } of topLevel) console.log(`${mb(kb)}  ${name}`)
} finally {
  if (keep) console.log(`\nkept ${project}`)
  else rmSync(scratch, { recursive: true, force: true })
}
