// Imports one Worker bundle in a fresh Node process and nothing else: what
// instructions.ts counts under callgrind (less an empty module's import).
import { pathToFileURL } from "node:url"

await import(pathToFileURL(process.argv[2]!).href)
