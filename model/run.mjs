#!/usr/bin/env node
/**
 * `npm run model`: every Promela model checked exhaustively by spin, with the
 * mutants that must fail. Prints one line per check; exits 1 when a model that
 * must hold has a counterexample, or a mutant or known gap no longer fails.
 */
import { checks, runCheck, toolsMissing } from "./checks.mjs"

const missing = await toolsMissing()
if (missing.length > 0) {
  console.error(`model: ${missing.join(" and ")} not found (Debian: apt-get install spin gcc)`)
  process.exit(1)
}

let failed = 0
for (const check of checks) {
  const result = await runCheck(check)
  if (!result.ok) failed++
  const verdict = result.errors === 0 ? "holds" : `counterexample: ${result.violation}`
  console.log(
    `${result.ok ? "ok  " : "FAIL"} ${check.name}: ${verdict}; ` +
      `${result.states.toLocaleString("en")} states, ${result.seconds.toFixed(1)} s (expected ${check.expect})`
  )
}
if (failed > 0) {
  console.error(`model: ${failed} check(s) did not go as expected`)
  process.exit(1)
}
