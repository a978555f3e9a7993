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

export interface PackRelease {
  readonly tarballs: ReadonlyArray<Tarball>
  /** The `npm install …` line the script printed, as words (`sh` quoting undone). */
  readonly installLine: ReadonlyArray<string>
}

/** The words of a line of `sh`, as pack-release quotes them (plain words, or 'single-quoted'). */
const shellWords = (line: string): ReadonlyArray<string> =>
  Array.from(line.matchAll(/(?:[^\s']+|'[^']*')+/g), ([word]) => word.replace(/'([^']*)'/g, "$1"))

/**
 * `scripts/pack-release.mjs` (what `npm run pack-release` runs after its build): `npm pack`
 * of every publishable package into `destination`, in one npm run, and the install line it
 * prints for `packages` (all when empty).
 */
export const packRelease = async (repo: string, destination: string, packages: ReadonlyArray<string> = []): Promise<PackRelease> => {
  const manifests = await publishablePackages(repo)
  const { stdout } = await run(process.execPath, [join(repo, "scripts/pack-release.mjs"), "--out", destination, ...packages], { cwd: repo })
  const packed = JSON.parse(await readFile(join(destination, "packed.json"), "utf8")) as ReadonlyArray<PackJson>
  const printed = stdout.split("\n").map((line) => line.trim()).filter((line) => line.startsWith("npm install "))
  if (printed.length !== 1) throw new Error(`pack-release printed ${printed.length} install lines:\n${stdout}`)
  return {
    installLine: shellWords(printed[0]!),
    tarballs: packed.map((entry) => ({
      name: entry.name,
      version: entry.version,
      path: join(destination, entry.filename),
      size: entry.size,
      files: entry.files.map((file) => file.path),
      manifest: manifests.find(({ manifest }) => manifest.name === entry.name)!.manifest
    }))
  }
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
