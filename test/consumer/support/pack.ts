import { readdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { run } from "./exec.js"

export interface Tarball {
  readonly name: string
  readonly version: string
  /** Absolute path of the .tgz. */
  readonly path: string
  readonly size: number
  readonly files: ReadonlyArray<string>
  readonly manifest: PackageManifest
}

export interface PackageManifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  readonly bin?: Record<string, string>
  readonly exports?: Record<string, string | Record<string, string> | null>
  readonly dependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
}

/** The publishable workspace packages (every `packages/*` not marked private). */
export const publishablePackages = async (repo: string) => {
  const dirs = (await readdir(join(repo, "packages"), { withFileTypes: true })).filter((entry) => entry.isDirectory())
  const found: Array<{ readonly dir: string; readonly manifest: PackageManifest }> = []
  for (const entry of dirs) {
    const dir = join(repo, "packages", entry.name)
    const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as PackageManifest
    if (manifest.private !== true) found.push({ dir, manifest })
  }
  return found
}

interface PackJson {
  readonly name: string
  readonly version: string
  readonly filename: string
  readonly size: number
  readonly files: ReadonlyArray<{ readonly path: string }>
}

/** `npm pack` of every publishable package into `destination`, in one npm run. */
export const packAll = async (repo: string, destination: string): Promise<ReadonlyArray<Tarball>> => {
  const packages = await publishablePackages(repo)
  const workspaces = packages.flatMap(({ dir }) => ["--workspace", dir])
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", destination, ...workspaces], { cwd: repo })
  const packed = JSON.parse(stdout) as ReadonlyArray<PackJson>
  return packed.map((entry) => ({
    name: entry.name,
    version: entry.version,
    path: join(destination, entry.filename),
    size: entry.size,
    files: entry.files.map((file) => file.path),
    manifest: packages.find(({ manifest }) => manifest.name === entry.name)!.manifest
  }))
}

/** The files a tarball's `exports`, `bin` and declaration maps need but it does not hold. */
export const missingFiles = (tarball: Tarball): ReadonlyArray<string> => {
  const has = new Set(tarball.files)
  const wanted = new Set<string>(["README.md", "LICENSE", "package.json"])
  for (const target of Object.values(tarball.manifest.exports ?? {})) {
    // `null` closes a subpath (`"./internal/*": null`): nothing to hold.
    if (target === null) continue
    for (const path of typeof target === "string" ? [target] : Object.values(target)) wanted.add(path.replace(/^\.\//, ""))
  }
  for (const path of Object.values(tarball.manifest.bin ?? {})) wanted.add(path.replace(/^\.\//, ""))
  for (const file of tarball.files) {
    if (file.endsWith(".d.ts")) wanted.add(`${file}.map`)
    if (file.startsWith("dist/src/") && file.endsWith(".js")) wanted.add(file.replace(/^dist\//, "").replace(/\.js$/, ".ts"))
  }
  return [...wanted].filter((path) => !has.has(path))
}
