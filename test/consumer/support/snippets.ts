import ts from "typescript"

/**
 * One ```ts block of a Markdown file, with the line its code starts on. A block whose
 * first line is a path comment (`// packages/core/test/acme-provider.ts`) is that whole
 * file: `file` is its name, and the app keeps it as a file of its own.
 */
export interface Snippet {
  readonly line: number
  readonly code: string
  readonly file?: string
}

/** Every ```ts (or ```typescript) block of a Markdown document, in order. */
export const extractSnippets = (markdown: string): ReadonlyArray<Snippet> => {
  const snippets: Array<Snippet> = []
  const lines = markdown.split("\n")
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)(`{3,})(ts|typescript)\s*$/.exec(lines[index]!)
    if (open === null) continue
    const [, indent, fence] = open
    const body: Array<string> = []
    let end = index + 1
    while (end < lines.length && lines[end]!.trim() !== fence) body.push(lines[end++]!.slice(indent!.length))
    const path = /^\/\/ (\S+\.ts)$/.exec(body[0] ?? "")
    snippets.push(
      path === null
        ? { line: index + 2, code: body.join("\n") }
        : { line: index + 3, code: body.slice(1).join("\n"), file: path[1]!.split("/").pop()! }
    )
    index = end
  }
  return snippets
}

// Per module: each imported binding ("Name", "Name as Alias", "* as NS", "default Name")
// and whether every block imported it as a type only.
type ImportSet = Map<string, boolean>

/**
 * The blocks of one document as one module: a tutorial's later blocks use what
 * earlier ones defined, and each block may show the imports it needs. Imports
 * are merged (a name two blocks import is imported once, as a value if any block
 * imports it as one) and put first; every other statement keeps its block's
 * order, under a comment naming the document line it came from.
 */
export const snippetsModule = (source: string, snippets: ReadonlyArray<Snippet>): string => {
  const imports = new Map<string, ImportSet>()
  const bodies: Array<string> = []
  const add = (from: string, binding: string, typeOnly: boolean) => {
    const set = imports.get(from) ?? new Map<string, boolean>()
    imports.set(from, set)
    set.set(binding, (set.get(binding) ?? true) && typeOnly)
  }
  for (const snippet of snippets) {
    const file = ts.createSourceFile(`${source}:${snippet.line}.ts`, snippet.code, ts.ScriptTarget.ES2022, true)
    const rest: Array<string> = []
    for (const statement of file.statements) {
      if (!ts.isImportDeclaration(statement)) {
        rest.push(snippet.code.slice(statement.getFullStart(), statement.getEnd()))
        continue
      }
      const from = (statement.moduleSpecifier as ts.StringLiteral).text
      const clause = statement.importClause
      if (clause === undefined) imports.set(from, imports.get(from) ?? new Map())
      const clauseType = clause?.isTypeOnly ?? false
      if (clause?.name) add(from, `default ${clause.name.text}`, clauseType)
      const bindings = clause?.namedBindings
      if (bindings && ts.isNamespaceImport(bindings)) add(from, `* as ${bindings.name.text}`, clauseType)
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          const name = element.propertyName ? `${element.propertyName.text} as ${element.name.text}` : element.name.text
          add(from, name, clauseType || element.isTypeOnly)
        }
      }
    }
    bodies.push(`// ${source}, line ${snippet.line}\n${rest.join("").replace(/^\n+/, "")}\n`)
  }
  const header: Array<string> = []
  for (const [module, set] of imports) {
    const from = JSON.stringify(module)
    const named: Array<string> = []
    for (const [binding, typeOnly] of set) {
      const type = typeOnly ? "type " : ""
      if (binding.startsWith("* as ")) header.push(`import ${type}${binding} from ${from}`)
      else if (binding.startsWith("default ")) header.push(`import ${type}${binding.slice(8)} from ${from}`)
      else named.push(`${type}${binding}`)
    }
    if (named.length > 0) header.push(`import { ${named.join(", ")} } from ${from}`)
    if (set.size === 0) header.push(`import ${from}`)
  }
  return `// Generated from ${source}'s TypeScript blocks: edit the document, not this file.\n${header.join("\n")}\n\n${bodies.join("\n")}`
}
