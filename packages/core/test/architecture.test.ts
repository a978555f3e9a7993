import { describe, expect, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { grammarProblems } from "./public-api.js"

const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, "../../..")
const src = resolve(here, "../src")
const architecture = readFileSync(join(root, "docs/architecture.md"), "utf8")

/** The table under "Core's folders, bottom to top": folder → the folders it may import. */
const rules = (): Map<string, ReadonlySet<string>> => {
  const section = architecture.split("### Core's folders, bottom to top")[1]?.split("\n### ")[0]?.split("\n## ")[0] ?? ""
  const table = new Map<string, ReadonlySet<string>>()
  for (const line of section.split("\n")) {
    const row = /^\| `([a-z-]+)\/` \| (.+) \|$/.exec(line)
    if (row === null) continue
    const allowed = [...row[2]!.matchAll(/`([a-z-]+)\/`/g)].map((m) => m[1]!)
    table.set(row[1]!, new Set(allowed))
  }
  return table
}

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith(".ts") ? [path] : []
  })

interface Source {
  readonly file: string
  readonly text: string
}

const read = (file: string): Source => ({ file, text: readFileSync(file, "utf8") })

/** Every relative import of a file, as the core folder it lands in (or "" for `src/` itself). */
const importedFolders = ({ file, text }: Source): Array<{ readonly specifier: string; readonly folder: string }> => {
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^"';]*?from\s+"(\.{1,2}\/[^"]+)"/g)].map((m) => {
    const target = relative(src, resolve(dirname(file), m[1]!))
    return { specifier: m[1]!, folder: target.includes("/") ? target.split("/")[0]! : "" }
  })
}

/** Each import of a folder from a folder that may not import it, as "from → to (file: specifier)". */
const violations = (table: Map<string, ReadonlySet<string>>, sources: ReadonlyArray<Source>): Array<string> => {
  const found: Array<string> = []
  for (const source of sources) {
    const file = source.file
    const folder = relative(src, file).split("/")[0]!
    if (!relative(src, file).includes("/")) continue // src/index.ts: the root entry point gathers every folder
    const allowed = table.get(folder)
    if (allowed === undefined) {
      found.push(`${folder}/ has no row in docs/architecture.md`)
      continue
    }
    for (const { folder: target, specifier } of importedFolders(source)) {
      if (target === folder) continue
      if (target === "" || !allowed.has(target)) found.push(`${folder} → ${target || "src/"} (${relative(src, file)}: ${specifier})`)
    }
  }
  return found
}

describe("core's folders", () => {
  it("the rule table in docs/architecture.md lists every folder of core's src", () => {
    const table = rules()
    const folders = readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory()).sort()
    expect([...table.keys()].sort()).toEqual(folders)
  })

  it("no folder imports one the table does not allow (no arrow runs back up)", () => {
    expect(violations(rules(), filesUnder(src).map(read))).toEqual([])
  })

  it("the check finds an import against the table, and lets an allowed one through", () => {
    const table = rules()
    const upward = { file: join(src, "kernel/made-up.ts"), text: `import { sendLeased } from "../orders/send-leased.js"\n` }
    const downward = { file: join(src, "orders/made-up.ts"), text: `import type { LeaseTerms } from "../kernel/lease-protocol.js"\n` }
    const reExport = { file: join(src, "mail/made-up.ts"), text: `export { receive } from "../orders/receive.js"\n` }
    expect(violations(table, [upward])).toEqual(["kernel → orders (kernel/made-up.ts: ../orders/send-leased.js)"])
    expect(violations(table, [downward])).toEqual([])
    expect(violations(table, [reExport])).toHaveLength(1)
  })
})

describe("the packages' public grammar", () => {
  const packages = join(root, "packages")
  const entryPoints = readdirSync(packages).flatMap((name) => {
    const dir = join(packages, name, "src")
    try {
      return filesUnder(dir).filter((file) => file.endsWith("/index.ts"))
    } catch {
      return []
    }
  })

  it("each namespace is a PascalCase module of its own name (export * as Resend from \"./Resend.js\")", () => {
    const namespaces = entryPoints.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/export \* as (\w+) from "([^"]+)"/g)].map((m) => ({
        file: relative(root, file),
        name: m[1]!,
        module: m[2]!.split("/").pop()!.replace(/\.js$/, "")
      }))
    )
    expect(namespaces.length).toBeGreaterThan(15)
    expect(namespaces.filter((n) => n.name !== n.module)).toEqual([])
  })

  it("no entry point re-exports an internal module", () => {
    const leaks = entryPoints.flatMap((file) => {
      const dir = dirname(file)
      return filesUnder(dir).filter((f) => !f.includes("/internal/")).flatMap((f) =>
        [...readFileSync(f, "utf8").matchAll(/export [^;]*?from "([^"]*\/internal\/[^"]*)"/g)].map((m) => `${relative(root, f)}: ${m[1]}`)
      )
    })
    expect(leaks).toEqual([])
  })
})

describe("the public API grammar (docs/architecture.md, \"Public API grammar\")", () => {
  it("no package's entry point breaks it", () => {
    expect(grammarProblems(root)).toEqual([])
  })

  it("the check finds each off-grammar form, and lets the grammar through", () => {
    const fake = mkdtempSync(join(tmpdir(), "hookgate-grammar-"))
    try {
      const write = (path: string, text: string) => {
        mkdirSync(dirname(join(fake, path)), { recursive: true })
        writeFileSync(join(fake, path), text)
      }
      write("packages/fake/package.json", JSON.stringify({
        name: "@hookgate/fake",
        exports: { ".": { "@hookgate/source": "./src/index.ts" }, "./more": { "@hookgate/source": "./src/more.ts" } }
      }))
      write("packages/fake/src/once.ts", "export const once = () => 1\nexport const onceHandler = () => 2\n")
      write("packages/fake/src/spans.ts", "export const step = () => 1\n")
      write("packages/fake/src/internal/helper.ts", "export const helper = () => 1\n")
      write("packages/fake/src/Queue.ts", "export const make = () => 1\nexport const layer = () => 2\nexport const makeMemory = () => 3\n")
      write("packages/fake/src/Bad.ts", "export const make = 1\nexport const shared = 2\n")
      write("packages/fake/src/index.ts", [
        "import { once, onceHandler } from \"./once.js\"",
        "export const makeInProcessQueue = () => 1",
        "export const layerThing = () => 2",
        "export const storeLayer = 3",
        "export const Consumer = { once, handler: onceHandler } as const",
        "export const ErrorCodes = { badToken: 10 } as const",
        "export { step as spanWhenTraced } from \"./spans.js\"",
        "export { helper } from \"./internal/helper.js\"",
        "export { SchemaTooNew } from \"@hookgate/store-sql\"",
        "export * as Queue from \"./Queue.js\"",
        "export * as Bad from \"./Bad.js\"",
        "export class Order {}"
      ].join("\n"))
      write("packages/fake/src/more.ts", "export { shared } from \"./Bad.js\"\n")
      expect(grammarProblems(fake)).toEqual([
        "@hookgate/fake makeInProcessQueue: a flat makeInProcessQueue (a constructor or layer lives under its namespace: X.make, X.layer…)",
        "@hookgate/fake layerThing: a flat layerThing (a constructor or layer lives under its namespace: X.make, X.layer…)",
        "@hookgate/fake storeLayer: named …Layer (Effect's grammar: X.layer…)",
        "@hookgate/fake Consumer: an object literal used as a namespace (a namespace is a module: export * as Consumer)",
        "@hookgate/fake spanWhenTraced: an alias of step (one spelling: rename the declaration)",
        "@hookgate/fake helper: re-exports a module of internal/ (packages/fake/src/internal/helper.ts#helper)",
        "@hookgate/fake SchemaTooNew: re-exports @hookgate/store-sql#SchemaTooNew (one spelling: import it from its own package)",
        "@hookgate/fake Bad.make: make… is not a function (make(options) returns an Effect)",
        "packages/fake/src/Bad.ts#shared is public under 2 spellings: @hookgate/fake Bad.shared, @hookgate/fake/more shared"
      ])
    } finally {
      rmSync(fake, { recursive: true, force: true })
    }
  })
})

describe("the docs", () => {
  const docs = [
    "README.md",
    ...readdirSync(join(root, "docs")).filter((n) => n.endsWith(".md")).map((n) => `docs/${n}`),
    ...readdirSync(join(root, "packages")).map((p) => `packages/${p}/README.md`)
  ]

  it("carry no merge-conflict markers", () => {
    const marked = docs.flatMap((doc) => {
      let text: string
      try {
        text = readFileSync(join(root, doc), "utf8")
      } catch {
        return []
      }
      return /^(<{7}|={7}|>{7})( |$)/m.test(text) ? [doc] : []
    })
    expect(marked).toEqual([])
  })
})
