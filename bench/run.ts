import { readFile, writeFile } from "node:fs/promises"
import { fileURLToPath } from "node:url"
import type { BenchSuite, Figure } from "./lib.js"
import { suites } from "./suites/index.js"

/** `npm run bench`: runs every suite, prints one table, writes bench/results.json. */

const resultsPath = fileURLToPath(new URL("../results.json", import.meta.url))
const only = process.argv.slice(2)

const format = (n: number) => (Math.abs(n) >= 100 ? Math.round(n).toLocaleString("en") : n.toFixed(2))

const main = async () => {
  let previous: Record<string, number> = {}
  try {
    previous = JSON.parse(await readFile(resultsPath, "utf8"))
  } catch {
    // first run
  }
  const results: Record<string, number> = { ...previous }
  const chosen: ReadonlyArray<BenchSuite> = only.length > 0 ? suites.filter((s) => only.includes(s.name)) : suites
  for (const suite of chosen) {
    console.log(`\n== ${suite.name}`)
    const figures: ReadonlyArray<Figure> = await suite.run()
    const width = Math.max(...figures.map((f) => f.label.length))
    for (const f of figures) {
      results[f.key] = f.value
      console.log(`  ${f.label.padEnd(width)}  ${format(f.value).padStart(12)} ${f.unit}   (${f.key})`)
    }
    for (const [label, top, bottom] of suite.ratios ?? []) {
      const ratio = results[top]! / results[bottom]!
      console.log(`  ${label}: ${ratio.toFixed(2)}`)
    }
  }
  await writeFile(resultsPath, JSON.stringify(results, null, 2) + "\n")
  console.log(`\nwrote ${resultsPath}`)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
