#!/usr/bin/env node
// `npm run pack-release [-- [--out DIR] [@hookgate/name ...]]`: `npm pack` of every
// publishable package into one folder (release/ by default), and the `npm install` line
// that installs the named packages (all by default) from there, with the @hookgate
// packages they depend on and their peers. Until @hookgate/* is on the npm registry,
// that line is how a project outside this repository installs hookgate. Nothing is
// published. Run after a build (`npm run pack-release` builds from clean first). It also writes
// `packed.json` (npm pack's report) beside the tarballs; test/consumer/ reads it.
import { execFileSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const repo = dirname(dirname(fileURLToPath(import.meta.url)))

const usage = "usage: npm run pack-release -- [--out DIR] [@hookgate/name ...]"
const args = process.argv.slice(2)
let out = join(repo, "release")
const named = []
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--out" && args[i + 1] !== undefined) out = resolve(args[++i])
  else if (args[i] === "--help" || args[i] === "-h") {
    console.log(usage)
    process.exit(0)
  } else if (args[i].startsWith("@hookgate/")) named.push(args[i])
  else {
    console.error(`pack-release: unexpected ${JSON.stringify(args[i])}\n${usage}`)
    process.exit(2)
  }
}

/** The publishable workspace packages: every `packages/*` not marked private. */
const publishable = readdirSync(join(repo, "packages"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => {
    const dir = join(repo, "packages", entry.name)
    return { dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }
  })
  .filter(({ manifest }) => manifest.private !== true)
const byName = new Map(publishable.map((p) => [p.manifest.name, p.manifest]))
for (const name of named) {
  if (!byName.has(name)) {
    console.error(`pack-release: ${name} is not one of the packages: ${[...byName.keys()].join(", ")}`)
    process.exit(2)
  }
}

mkdirSync(out, { recursive: true })
const report = execFileSync(
  "npm",
  ["pack", "--json", "--pack-destination", out, ...publishable.flatMap(({ dir }) => ["--workspace", dir])],
  { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 * 1024 * 1024 }
)
writeFileSync(join(out, "packed.json"), report)
const tarballOf = new Map(JSON.parse(report).map((entry) => [entry.name, join(out, entry.filename)]))

/** The named packages and the @hookgate packages they depend on, transitively (npm cannot fetch those yet). */
const wanted = new Set()
const visit = (name) => {
  if (wanted.has(name)) return
  wanted.add(name)
  for (const dependency of Object.keys(byName.get(name).dependencies ?? {})) {
    if (dependency.startsWith("@hookgate/")) visit(dependency)
  }
}
;(named.length > 0 ? named : [...byName.keys()]).forEach(visit)

/** Their required peers, at the ranges they declare: the app's own copies of effect and @effect/*. */
const peers = new Map()
for (const name of wanted) {
  const manifest = byName.get(name)
  for (const [peer, range] of Object.entries(manifest.peerDependencies ?? {})) {
    if (manifest.peerDependenciesMeta?.[peer]?.optional === true || peer.startsWith("@hookgate/")) continue
    peers.set(peer, range)
  }
}

const quoted = (word) => (/^[\w@%+=:,./^~<>-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)
const line = [
  "npm",
  "install",
  ...[...wanted].sort().map((name) => tarballOf.get(name)),
  ...[...peers].sort(([a], [b]) => a.localeCompare(b)).map(([peer, range]) => `${peer}@${range}`)
].map(quoted).join(" ")

console.log(`Packed ${tarballOf.size} packages into ${out} (nothing is published).`)
console.log(
  `Until @hookgate/* is on the npm registry, install ${named.length > 0 ? named.join(", ") : "every package"} from these tarballs, in your project:`
)
console.log("")
console.log(`  ${line}`)
console.log("")
if (wanted.has("@hookgate/node")) console.log("Then the CLI: npx @hookgate/node --help")
if (named.length === 0) console.log("Name packages for a shorter line: npm run pack-release -- @hookgate/node")
