// Every package depends on what it uses, and declares what it imports. "Used": its own code
// (src/ and bin/) imports the package, or the package is the `@types/` of one it imports, or
// it is a required peer of a package its code imports, and the modules its code reaches
// really load it (so a dependency of ours can find it under a strict package manager).
// Declared and never loaded is a cost every user pays: @effect/cluster, @effect/rpc and
// @effect/workflow came to @hookgate/node that way, about 8 MB of the CLI's install.
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { isBare, loadedPackages, packageDir, packageName, specifiersOf } from "./module-graph.js"

const repo = join(import.meta.dirname, "..", "..")

interface Manifest {
  readonly name: string
  readonly dependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>
}

const readJson = <A>(path: string): A => JSON.parse(readFileSync(path, "utf8")) as A

const filesUnder = (dir: string): Array<string> => {
  try {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      return statSync(path).isDirectory() ? filesUnder(path) : /\.(ts|js|mjs)$/.test(name) && !name.endsWith(".d.ts") ? [path] : []
    })
  } catch {
    return []
  }
}

const packages = readdirSync(join(repo, "packages")).map((folder) => {
  const dir = join(repo, "packages", folder)
  return { dir, manifest: readJson<Manifest>(join(dir, "package.json")), files: [...filesUnder(join(dir, "src")), ...filesUnder(join(dir, "bin"))] }
})

/** The packages a package's own code names in an import (static, dynamic or type-only). */
const imported = (files: ReadonlyArray<string>, self: string): ReadonlySet<string> =>
  new Set(
    files.flatMap((file) =>
      specifiersOf(file).filter(isBare).map(packageName)
    ).filter((name) => name !== self)
  )

/** The required (not optional) peers of an installed package. */
const requiredPeers = (name: string): ReadonlyArray<string> => {
  const dir = packageDir(name, repo)
  if (dir === undefined) return []
  const manifest = readJson<Manifest>(join(dir, "package.json"))
  return Object.keys(manifest.peerDependencies ?? {}).filter((peer) => manifest.peerDependenciesMeta?.[peer]?.optional !== true)
}

const optionalPeers = (manifest: Manifest) =>
  new Set(Object.keys(manifest.peerDependenciesMeta ?? {}).filter((name) => manifest.peerDependenciesMeta![name]!.optional === true))

/**
 * The required peers a package must provide because the modules it loads load them: those of
 * the packages it imports, and of those peers in turn (`@effect/cli` → `@effect/printer` →
 * `@effect/typeclass`). npm installs a missing peer by itself; yarn 1 does not, and a peer
 * that is loaded and provided by nobody fails at run time there. An optional peer's own peers
 * come with it: whoever turns its feature on installs it, and npm its peers.
 */
const loadedPeers = (pkg: (typeof packages)[number], loaded: ReadonlySet<string>): ReadonlySet<string> => {
  const optional = optionalPeers(pkg.manifest)
  const found = new Set<string>()
  const visited = new Set<string>()
  const visit = (name: string) => {
    if (visited.has(name) || optional.has(name)) return
    visited.add(name)
    for (const peer of requiredPeers(name)) {
      if (!loaded.has(peer) || peer === pkg.manifest.name) continue
      found.add(peer)
      visit(peer)
    }
  }
  imported(pkg.files, pkg.manifest.name).forEach(visit)
  return found
}

const declaredBy = (manifest: Manifest) => [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]

/** What a package declares but does not use. */
export const unusedDeclarations = (pkg: (typeof packages)[number]): ReadonlyArray<string> => {
  const direct = imported(pkg.files, pkg.manifest.name)
  const loaded = loadedPackages(pkg.files, pkg.dir)
  const peers = loadedPeers(pkg, loaded)
  return declaredBy(pkg.manifest).filter((name) => {
    if (direct.has(name) || peers.has(name)) return false
    if (name.startsWith("@types/")) return !loaded.has(name.slice("@types/".length).replace(/^(.+)__(.+)$/, "@$1/$2"))
    return true
  })
}

/** The loaded required peers a package leaves to someone else. */
export const unprovidedPeers = (pkg: (typeof packages)[number]): ReadonlyArray<string> => {
  const declared = new Set(declaredBy(pkg.manifest))
  return [...loadedPeers(pkg, loadedPackages(pkg.files, pkg.dir))].filter((name) => !declared.has(name)).sort()
}

describe.each(packages.map((pkg) => [pkg.manifest.name, pkg] as const))("%s", (_, pkg) => {
  it("declares only packages its code imports, or the required peers the modules it imports load", () => {
    expect(unusedDeclarations(pkg)).toEqual([])
  }, 180_000) // the first walk reads thousands of modules; the next ones reuse them

  it("provides the required peers that the packages it imports load (yarn 1 installs no peer)", () => {
    expect(unprovidedPeers(pkg)).toEqual([])
  }, 180_000)

  it("declares every package its code imports (in dependencies or peerDependencies, not devDependencies)", () => {
    const declared = new Set([...Object.keys(pkg.manifest.dependencies ?? {}), ...Object.keys(pkg.manifest.peerDependencies ?? {})])
    expect([...imported(pkg.files, pkg.manifest.name)].filter((name) => !declared.has(name))).toEqual([])
  })
})
