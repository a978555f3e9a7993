/**
 * Every package's public surface, read from the sources its `package.json` exports
 * (the `@hookgate/source` condition) with TypeScript's parser: each name an entry
 * point exports, what kind of thing it is and where it is declared. The grammar
 * test in `architecture.test.ts` checks these against the rule in `docs/architecture.md`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import ts from "typescript"

export type ExportKind = "function" | "class" | "object" | "value" | "type" | "namespace"

export interface PublicExport {
  /** `@hookgate/core/queue` */
  readonly entry: string
  readonly name: string
  readonly kind: ExportKind
  /** The declaration, as `path/to/file.ts#name` relative to the repository root. */
  readonly origin: string
  /** The name it is declared under, when the entry point re-exports it as another. */
  readonly renamedFrom?: string
  /** A re-export of another package (`export { X } from "@hookgate/core"`). */
  readonly fromPackage?: string
  /** A re-export of a module under `internal/`. */
  readonly fromInternal?: boolean
  /** An object literal with a function among its members: a namespace written as a value. */
  readonly functionMembers?: boolean
}

const parsed = new Map<string, ts.SourceFile>()
const parse = (file: string): ts.SourceFile => {
  let source = parsed.get(file)
  if (source === undefined) {
    source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
    parsed.set(file, source)
  }
  return source
}

const resolveModule = (from: string, specifier: string): string => {
  const base = resolve(dirname(from), specifier)
  const candidates = [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")]
  const found = candidates.find((candidate) => existsSync(candidate))
  if (found === undefined) throw new Error(`cannot resolve ${specifier} from ${from}`)
  return found
}

const hasExport = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)

const unwrap = (expression: ts.Expression): ts.Expression =>
  ts.isAsExpression(expression) || ts.isSatisfiesExpression(expression) || ts.isParenthesizedExpression(expression)
    ? unwrap(expression.expression)
    : expression

const hasFunctionMembers = (initializer: ts.Expression | undefined): boolean => {
  const inner = initializer === undefined ? undefined : unwrap(initializer)
  return inner !== undefined && ts.isObjectLiteralExpression(inner) && inner.properties.some((p) =>
    ts.isMethodDeclaration(p) || ts.isShorthandPropertyAssignment(p) ||
    (ts.isPropertyAssignment(p) && (ts.isArrowFunction(unwrap(p.initializer)) || ts.isFunctionExpression(unwrap(p.initializer))))
  )
}

const kindOfInitializer = (initializer: ts.Expression | undefined): ExportKind => {
  if (initializer === undefined) return "value"
  const inner = unwrap(initializer)
  if (ts.isArrowFunction(inner) || ts.isFunctionExpression(inner)) return "function"
  if (ts.isObjectLiteralExpression(inner)) return "object"
  if (ts.isClassExpression(inner)) return "class"
  return "value"
}

interface Declared {
  readonly kind: ExportKind
  readonly origin: string
  readonly fromPackage?: string
  readonly fromInternal?: boolean
  readonly functionMembers?: boolean
}

/** What `name` is in `file`: a declaration of its own, or what an import or re-export brings. */
const declared = (root: string, file: string, name: string, typeOnly: boolean): Declared => {
  const source = parse(file)
  const here = (kind: ExportKind, functionMembers = false): Declared => ({
    kind: typeOnly ? "type" : kind,
    origin: `${relative(root, file)}#${name}`,
    ...(functionMembers && !typeOnly ? { functionMembers } : {})
  })
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name) && declaration.name.text === name) {
          return here(kindOfInitializer(declaration.initializer), hasFunctionMembers(declaration.initializer))
        }
      }
    } else if (ts.isFunctionDeclaration(statement) && statement.name?.text === name) return here("function")
    else if (ts.isClassDeclaration(statement) && statement.name?.text === name) return here("class")
    else if (ts.isEnumDeclaration(statement) && statement.name.text === name) return here("value")
    else if ((ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) && statement.name.text === name) {
      // A name may be both a type and a value (a Schema and its type): keep looking for the value.
      const value = source.statements.some((s) =>
        (ts.isVariableStatement(s) && s.declarationList.declarations.some((d) => ts.isIdentifier(d.name) && d.name.text === name)) ||
        ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && s.name?.text === name)
      )
      if (!value) return here("type")
    } else if (ts.isModuleDeclaration(statement) && ts.isIdentifier(statement.name) && statement.name.text === name) {
      return here("namespace")
    } else if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const specifier = statement.moduleSpecifier.text
      const clause = statement.importClause
      const bindings = clause?.namedBindings
      const only = typeOnly || (clause?.isTypeOnly ?? false)
      if (bindings !== undefined && ts.isNamespaceImport(bindings) && bindings.name.text === name) {
        return specifier.startsWith(".")
          ? { kind: "namespace", origin: relative(root, resolveModule(file, specifier)) }
          : { kind: "namespace", origin: specifier, fromPackage: specifier }
      }
      if (bindings !== undefined && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          if (element.name.text !== name) continue
          const original = element.propertyName?.text ?? name
          if (!specifier.startsWith(".")) return { kind: only ? "type" : "value", origin: `${specifier}#${original}`, fromPackage: specifier }
          return declared(root, resolveModule(file, specifier), original, only || element.isTypeOnly)
        }
      }
    }
  }
  // Not declared here: an `export … from` of this module brings it.
  for (const entry of exportsOf(root, file, "")) if (entry.name === name) return entry
  throw new Error(`${name} is not declared in ${file}`)
}

/** The names a module exports, following `export *` and `export { … } from` chains. */
export const exportsOf = (root: string, file: string, entry: string): Array<PublicExport> => {
  const source = parse(file)
  const found: Array<PublicExport> = []
  const add = (name: string, what: Declared, renamedFrom?: string) =>
    found.push({ entry, name, ...what, ...(renamedFrom !== undefined && renamedFrom !== name ? { renamedFrom } : {}) })
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const specifier = statement.moduleSpecifier !== undefined && ts.isStringLiteral(statement.moduleSpecifier)
        ? statement.moduleSpecifier.text
        : undefined
      const fromInternal = specifier?.includes("/internal/") ?? false
      const clause = statement.exportClause
      if (specifier !== undefined && !specifier.startsWith(".")) {
        // Another package's names, re-exported.
        if (clause === undefined) found.push({ entry, name: "*", kind: "value", origin: specifier, fromPackage: specifier })
        else if (ts.isNamespaceExport(clause)) add(clause.name.text, { kind: "namespace", origin: specifier, fromPackage: specifier })
        else for (const e of clause.elements) {
          add(e.name.text, { kind: statement.isTypeOnly || e.isTypeOnly ? "type" : "value", origin: `${specifier}#${e.propertyName?.text ?? e.name.text}`, fromPackage: specifier }, e.propertyName?.text)
        }
        continue
      }
      const target = specifier === undefined ? undefined : resolveModule(file, specifier)
      if (clause === undefined) {
        for (const e of exportsOf(root, target!, entry)) found.push(fromInternal ? { ...e, fromInternal } : e)
      } else if (ts.isNamespaceExport(clause)) {
        add(clause.name.text, { kind: "namespace", origin: relative(root, target!), fromInternal })
      } else {
        for (const e of clause.elements) {
          const original = e.propertyName?.text ?? e.name.text
          const typeOnly = statement.isTypeOnly || e.isTypeOnly
          const what = declared(root, target ?? file, original, typeOnly)
          add(e.name.text, fromInternal ? { ...what, fromInternal } : what, original)
        }
      }
      continue
    }
    if (!hasExport(statement)) continue
    if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) {
        if (!ts.isIdentifier(d.name)) continue
        const functionMembers = hasFunctionMembers(d.initializer)
        add(d.name.text, {
          kind: kindOfInitializer(d.initializer),
          origin: `${relative(root, file)}#${d.name.text}`,
          ...(functionMembers ? { functionMembers } : {})
        })
      }
    } else if (ts.isFunctionDeclaration(statement) && statement.name !== undefined) {
      add(statement.name.text, { kind: "function", origin: `${relative(root, file)}#${statement.name.text}` })
    } else if (ts.isClassDeclaration(statement) && statement.name !== undefined) {
      add(statement.name.text, { kind: "class", origin: `${relative(root, file)}#${statement.name.text}` })
    } else if (ts.isEnumDeclaration(statement)) {
      add(statement.name.text, { kind: "value", origin: `${relative(root, file)}#${statement.name.text}` })
    } else if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) {
      add(statement.name.text, { kind: "type", origin: `${relative(root, file)}#${statement.name.text}` })
    } else if (ts.isModuleDeclaration(statement) && ts.isIdentifier(statement.name)) {
      add(statement.name.text, { kind: "namespace", origin: `${relative(root, file)}#${statement.name.text}` })
    }
  }
  // A type and a value of one name (a Schema and its type) are one export.
  const byName = new Map<string, PublicExport>()
  for (const e of found) {
    const seen = byName.get(e.name)
    if (seen === undefined || seen.kind === "type") byName.set(e.name, e)
  }
  return [...byName.values()]
}

/** Every package's entry points, from its `package.json` `exports`: `@hookgate/core/queue` → its source file. */
export const entryPoints = (root: string): Array<{ readonly entry: string; readonly file: string }> =>
  readdirSync(join(root, "packages")).flatMap((dir) => {
    const manifest = join(root, "packages", dir, "package.json")
    if (!existsSync(manifest)) return []
    const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { name: string; exports?: Record<string, unknown> }
    return Object.entries(pkg.exports ?? {}).flatMap(([subpath, target]) => {
      const source = typeof target === "object" && target !== null ? (target as Record<string, unknown>)["@hookgate/source"] : undefined
      return typeof source === "string"
        ? [{ entry: subpath === "." ? pkg.name : `${pkg.name}${subpath.slice(1)}`, file: join(root, "packages", dir, source) }]
        : []
    })
  })

/** Every public export of every package. */
export const publicExports = (root: string): Array<PublicExport> =>
  entryPoints(root).flatMap(({ entry, file }) => exportsOf(root, file, entry))

/** The members of a namespace module (`export * as Resend from "./Resend.js"`). */
export const namespaceMembers = (root: string, origin: string): Array<PublicExport> => exportsOf(root, join(root, origin), origin)

const isPascalCase = (name: string) => /^[A-Z][a-z0-9]/.test(name)
const isConstructorName = (name: string) => /^(make|layer)([A-Z0-9]|$)/.test(name)
const isLayerSuffixed = (name: string) => /.Layer$/.test(name)

/** What is wrong with one export, by the rule of `docs/architecture.md`'s "Public API grammar". */
const problemsOf = (e: PublicExport, where: string, flat: boolean): Array<string> => {
  const problems: Array<string> = []
  if (e.fromPackage !== undefined) problems.push(`${where}: re-exports ${e.origin} (one spelling: import it from its own package)`)
  if (e.fromInternal === true) problems.push(`${where}: re-exports a module of internal/ (${e.origin})`)
  if (e.renamedFrom !== undefined) problems.push(`${where}: an alias of ${e.renamedFrom} (one spelling: rename the declaration)`)
  if (e.kind === "type") return problems
  if (flat && isConstructorName(e.name)) {
    problems.push(`${where}: a flat ${e.name} (a constructor or layer lives under its namespace: X.make, X.layer…)`)
  }
  if (isLayerSuffixed(e.name)) problems.push(`${where}: named …Layer (Effect's grammar: X.layer…)`)
  if (e.kind === "object" && e.functionMembers === true && isPascalCase(e.name)) {
    problems.push(`${where}: an object literal used as a namespace (a namespace is a module: export * as ${e.name})`)
  }
  if (!flat && /^make([A-Z0-9]|$)/.test(e.name) && e.kind !== "function") {
    problems.push(`${where}: make… is not a function (make(options) returns an Effect)`)
  }
  return problems
}

/**
 * Every export of every package's entry points that breaks the public grammar: a flat
 * `make…`/`layer…`, an `…Layer` name, an object literal namespace, an alias, a
 * re-export of another package or of `internal/`, a `make` that is not a function,
 * and a declaration public under more than one spelling.
 */
export const grammarProblems = (root: string): Array<string> => {
  const problems: Array<string> = []
  const spellings = new Map<string, Set<string>>()
  const spelled = (e: PublicExport, path: string) => {
    if (e.fromPackage !== undefined) return
    const paths = spellings.get(e.origin) ?? new Set<string>()
    paths.add(path)
    spellings.set(e.origin, paths)
  }
  for (const e of publicExports(root)) {
    const path = `${e.entry} ${e.name}`
    problems.push(...problemsOf(e, path, true))
    spelled(e, path)
    if (e.kind !== "namespace" || e.fromPackage !== undefined) continue
    for (const member of namespaceMembers(root, e.origin)) {
      const memberPath = `${e.entry} ${e.name}.${member.name}`
      problems.push(...problemsOf(member, memberPath, false))
      spelled(member, memberPath)
    }
  }
  for (const [origin, paths] of spellings) {
    if (paths.size > 1) problems.push(`${origin} is public under ${paths.size} spellings: ${[...paths].sort().join(", ")}`)
  }
  return problems
}
