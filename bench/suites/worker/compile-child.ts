// Compiles one Worker bundle as an ES module in a fresh Node process and neither links
// nor evaluates it (run with --experimental-vm-modules): what instructions.ts counts as
// the bundle's parse and compile, the share of its import() no top-level work changes.
import { readFileSync } from "node:fs"
import { SourceTextModule } from "node:vm"

new SourceTextModule(readFileSync(process.argv[2]!, "utf8"))
