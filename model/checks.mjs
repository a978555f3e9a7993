import { execFile } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const here = fileURLToPath(new URL(".", import.meta.url))

/**
 * Every check `npm run model` makes. `expect: "hold"` must verify with no error;
 * `expect: "violation"` must produce a counterexample whose assertion text
 * contains `violates`: the mutants, each a step of the protocol broken on
 * purpose, so that no property passes vacuously (docs/architecture.md explains them).
 */
export const checks = [
  {
    name: "orders, key-honouring mailer",
    model: "orders.pml",
    defines: ["HONOURS=1"],
    expect: "hold"
  },
  {
    name: "orders, mailer without idempotency keys",
    model: "orders.pml",
    defines: ["HONOURS=0"],
    expect: "hold"
  },
  {
    name: "campaign, pause and resume, a crash",
    model: "campaign.pml",
    defines: ["NO_REDELIVERY", "MAXCRASH=1"],
    expect: "hold"
  },
  {
    name: "campaign, a batch message delivered twice at once",
    model: "campaign.pml",
    defines: ["NO_PAUSE", "MAXCRASH=0"],
    expect: "hold"
  },
  {
    name: "mutant: complete and release without the token guard",
    model: "orders.pml",
    defines: ["HONOURS=1", "NO_TOKEN_GUARD"],
    expect: "violation",
    violates: "lease==_pid"
  },
  {
    name: "mutant: a campaign reservation that skips reserved rows",
    model: "campaign.pml",
    defines: ["NO_REDELIVERY", "MAXCRASH=1", "SKIP_RESERVED"],
    expect: "violation",
    violates: "status[r]=="
  },
  {
    name: "mutant: a capped alert that does not count the attempts that may have reached the buyer",
    model: "orders.pml",
    defines: ["HONOURS=0", "ALERT_WITHOUT_COUNT"],
    expect: "violation",
    violates: "possibleDups>0"
  },
  {
    name: "mutant: an acquire that does not count the unreleased lease it takes over",
    model: "orders.pml",
    defines: ["HONOURS=1", "NO_TAKEOVER_COUNT"],
    expect: "violation",
    violates: "alertCount>=accepted"
  },
  {
    name: "mutant: a campaign batch's alert written after its record",
    model: "campaign.pml",
    defines: ["NO_REDELIVERY", "MAXCRASH=1", "ALERT_AFTER_RECORD"],
    expect: "violation",
    violates: "alerted[batchNo[r]]"
  }
]

// Asynchronous, so a test runner's worker stays responsive while pan runs.
const run = async (command, args, cwd) =>
  (await promisify(execFile)(command, args, { cwd, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 })).stdout

/** Whether spin and a C compiler are on PATH. */
export const toolsMissing = async () => {
  const missing = []
  for (const [tool, flag] of [["spin", "-V"], ["gcc", "--version"]]) {
    try {
      await run(tool, [flag], here)
    } catch {
      missing.push(tool)
    }
  }
  return missing
}

/** Builds the verifier (spin -a, gcc) for one check and runs it exhaustively. */
export const runCheck = async (check) => {
  const dir = mkdtempSync(join(tmpdir(), "hookgate-model-"))
  try {
    const started = Date.now()
    await run("spin", ["-a", ...check.defines.map((d) => `-D${d}`), join(here, check.model)], dir)
    // SAFETY: assertions and invalid end states (a process stuck before quiescence).
    await run("gcc", ["-O1", "-w", "-DSAFETY", "-o", "pan", "pan.c"], dir)
    let output
    try {
      output = await run(join(dir, "pan"), ["-m200000", "-w22"], dir)
    } catch (error) {
      output = String(error.stdout ?? "") + String(error.stderr ?? "")
    }
    const number = (pattern) => Number(output.match(pattern)?.[1] ?? Number.NaN)
    const errors = number(/errors: (\d+)/)
    const states = number(/(\d+) states, stored/)
    const transitions = number(/(\d+) transitions/)
    const violation = output.match(/pan:\d+: (.*)/)?.[1] ?? null
    const truncated = /max search depth too small/.test(output)
    const ok = check.expect === "hold"
      ? errors === 0 && !truncated
      : errors > 0 && violation !== null && violation.includes(check.violates)
    return { ...check, ok, errors, states, transitions, violation, truncated, seconds: (Date.now() - started) / 1000 }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
