// Imports one Worker bundle in a fresh Node process (run by worker.ts) and prints
// the CPU the import took (user + system, all threads): reading, compiling and
// evaluating its global scope. CPU rather than wall time, which a shared machine skews.
import { pathToFileURL } from "node:url"

const started = process.cpuUsage()
await import(pathToFileURL(process.argv[2]!).href)
const used = process.cpuUsage(started)
console.log(JSON.stringify({ ms: (used.user + used.system) / 1000 }))
