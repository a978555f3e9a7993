import { existsSync, readFileSync, realpathSync, statSync } from "node:fs"
import { builtinModules } from "node:module"
import { dirname, join } from "node:path"
import ts from "typescript"

/**
 * The packages a module loads, following its imports (static, dynamic and `require`) through
 * every module they reach, across packages, as Node would resolve them from the files on disk
 * (the workspace's `@hookgate/source` condition first, so workspace packages are read from
 * their TypeScript sources). An over-approximation in one way only: a type-only import counts
 * as a load. Specifiers that resolve to nothing installed (an optional native addon, a
 * runtime's own module such as `cloudflare:email`) are skipped.
 */

const conditions = ["@hookgate/source", "node", "import", "require", "default"]
const builtins = new Set(builtinModules)

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
export const packageName = (specifier: string): string => {
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!
}

export const isBare = (specifier: string) =>
  !specifier.startsWith(".") && !specifier.startsWith("/") && !specifier.includes(":") && !builtins.has(specifier.split("/")[0]!)

const isFile = (path: string) => existsSync(path) && statSync(path).isFile()

/** The file a path names, with the extensions TypeScript sources and packages leave out. */
const asFile = (path: string): string | undefined => {
  const candidates = [path, path.replace(/\.js$/, ".ts"), `${path}.js`, `${path}.ts`, `${path}.cjs`, `${path}.mjs`, `${path}.json`, join(path, "index.js"), join(path, "index.ts")]
  const found = candidates.find(isFile)
  return found === undefined ? undefined : realpathSync(found)
}

type Target = string | null | ReadonlyArray<Target> | { readonly [condition: string]: Target }

const pick = (target: Target): string | undefined => {
  if (target === null) return undefined
  if (typeof target === "string") return target
  if (Array.isArray(target)) return target.map(pick).find((t) => t !== undefined)
  const map = target as { readonly [condition: string]: Target }
  for (const condition of conditions) if (condition in map) {
    const chosen = pick(map[condition]!)
    if (chosen !== undefined) return chosen
  }
  return undefined
}

/** A package's `exports` entry for a subpath (`.` or `./x`), with `*` patterns. */
const exported = (exports: Target, subpath: string): string | undefined => {
  if (typeof exports === "string" || Array.isArray(exports) || exports === null) return subpath === "." ? pick(exports) : undefined
  const map = exports as { readonly [key: string]: Target }
  if (!Object.keys(map).some((key) => key.startsWith("."))) return subpath === "." ? pick(map) : undefined
  if (subpath in map) return pick(map[subpath]!)
  for (const key of Object.keys(map)) {
    const star = key.indexOf("*")
    if (star < 0) continue
    const [prefix, suffix] = [key.slice(0, star), key.slice(star + 1)]
    if (subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= key.length - 1) {
      const chosen = pick(map[key]!)
      return chosen?.replaceAll("*", subpath.slice(prefix.length, subpath.length - suffix.length))
    }
  }
  return undefined
}

/** The folder of the package `name` as seen from `fromDir` (node_modules, looked up towards the root). */
export const packageDir = (name: string, fromDir: string): string | undefined => {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name)
    if (isFile(join(candidate, "package.json"))) return realpathSync(candidate)
    if (dirname(dir) === dir) return undefined
  }
}

const resolveBare = (specifier: string, fromDir: string): string | undefined => {
  const name = packageName(specifier)
  const dir = packageDir(name, fromDir)
  if (dir === undefined) return undefined
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { exports?: Target; main?: string; module?: string }
  const subpath = specifier === name ? "." : `.${specifier.slice(name.length)}`
  if (manifest.exports !== undefined) {
    const target = exported(manifest.exports, subpath)
    return target === undefined ? undefined : asFile(join(dir, target))
  }
  return asFile(join(dir, subpath === "." ? (manifest.main ?? "index.js") : subpath))
}

/**
 * The specifiers a module names: `import … from`, `export … from` (`export * as x from` too,
 * which `ts.preProcessFile` misses), `import x = require(…)`, `import(…)` and `require(…)`
 * with a literal.
 */
const parsed = new Map<string, ReadonlyArray<string>>()
export const specifiersOf = (file: string): ReadonlyArray<string> => {
  const known = parsed.get(file)
  if (known !== undefined) return known
  const found = parse(file)
  parsed.set(file, found)
  return found
}

const parse = (file: string): ReadonlyArray<string> => {
  if (/\.(json|node)$/.test(file) || file.endsWith(".d.ts")) return []
  const text = readFileSync(file, "utf8")
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false)
  const found: Array<string> = []
  const literal = (node: ts.Node | undefined) => {
    if (node !== undefined && ts.isStringLiteralLike(node)) found.push(node.text)
  }
  const calls = /\b(require|import)\s*\(/.test(text)
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) literal(node.moduleSpecifier)
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) literal(node.moduleReference.expression)
    else if (
      ts.isCallExpression(node) && node.arguments.length >= 1 &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === "require"))
    ) literal(node.arguments[0])
    if (calls) ts.forEachChild(node, visit)
  }
  source.statements.forEach(visit)
  return found
}

/** The names of the packages loaded from `entries` (files), directly or through other modules. */
export const loadedPackages = (entries: ReadonlyArray<string>, ownDir: string): ReadonlySet<string> => {
  const own = realpathSync(ownDir)
  const seen = new Set<string>()
  const loaded = new Set<string>()
  const queue = entries.map((entry) => realpathSync(entry))
  while (queue.length > 0) {
    const file = queue.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    for (const specifier of specifiersOf(file)) {
      const target = isBare(specifier) ? resolveBare(specifier, dirname(file)) : specifier.startsWith(".") ? asFile(join(dirname(file), specifier)) : undefined
      if (isBare(specifier) && target !== undefined && !target.startsWith(`${own}/`)) loaded.add(packageName(specifier))
      if (target !== undefined) queue.push(target)
    }
  }
  return loaded
}
