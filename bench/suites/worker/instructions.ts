import { execFile, execFileSync } from "node:child_process"
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

/**
 * Instruction counts (valgrind's callgrind) for the worker suite's cold figures: a
 * count a loaded machine does not move, where CPU time on a shared machine drifts.
 * On by default when valgrind and callgrind_control are on PATH; BENCH_WORKER_VALGRIND=0
 * skips them (they add a few minutes).
 */

export const valgrindWanted = (): boolean => {
  if (process.env.BENCH_WORKER_VALGRIND === "0") return false
  try {
    execFileSync("valgrind", ["--version"], { stdio: "ignore" })
    execFileSync("callgrind_control", ["--version"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

const importChild = fileURLToPath(new URL("./import-child.js", import.meta.url))
const compileChild = fileURLToPath(new URL("./compile-child.js", import.meta.url))

/** Instructions of a fresh Node (`--single-threaded`, so no background compiler or GC thread) running `args`. */
const nodeInstructions = async (args: ReadonlyArray<string>) => {
  const dir = mkdtempSync(join(tmpdir(), "hookgate-bench-callgrind-"))
  try {
    const out = join(dir, "node.cg")
    await promisify(execFile)("valgrind", [
      "--tool=callgrind",
      `--callgrind-out-file=${out}`,
      process.execPath,
      "--single-threaded",
      ...args
    ], { maxBuffer: 16 * 1024 * 1024 })
    return summary(out)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The `summary:` line of a callgrind output file: instructions executed. */
const summary = (file: string) => {
  const line = readFileSync(file, "utf8").split("\n").find((l) => l.startsWith("summary:"))
  if (line === undefined) throw new Error(`no summary in ${file}`)
  return Number(line.slice("summary:".length).trim())
}

/** Instructions of `child` given each of `paths`, less those of it given an empty module (Node's own start-up). */
const perModule = async <K extends string>(
  child: ReadonlyArray<string>,
  paths: Record<K, string>
): Promise<Record<K, number>> => {
  const dir = mkdtempSync(join(tmpdir(), "hookgate-bench-empty-"))
  try {
    const empty = join(dir, "empty.mjs")
    writeFileSync(empty, "export default {}\n")
    const floor = await nodeInstructions([...child, empty])
    const result = {} as Record<K, number>
    for (const kind of Object.keys(paths) as Array<K>) result[kind] = (await nodeInstructions([...child, paths[kind]])) - floor
    return result
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Instructions of each bundle's `import()` in Node: reading, compiling and evaluating
 * its global scope, less those of importing an empty module (Node's own start-up).
 */
export const moduleEvalInstructions = <K extends string>(paths: Record<K, string>) => perModule([importChild], paths)

/**
 * Instructions of compiling each bundle as an ES module in Node, without linking or
 * evaluating it, less those of compiling an empty module: the part of `import()` that
 * follows the code shipped, whatever its global scope does.
 */
export const moduleCompileInstructions = <K extends string>(paths: Record<K, string>) =>
  perModule(["--experimental-vm-modules", "--no-warnings", compileChild], paths)

/**
 * A workerd that runs under callgrind with instrumentation off (so it starts at a
 * few times native speed): `MINIFLARE_WORKERD_PATH` names a script that runs the
 * real workerd under valgrind. `count` turns instrumentation on around `act` and
 * answers the instructions the whole process executed during it (D1's simulator and
 * the `send_email` binding count too, alike for every Worker).
 */
export const callgrindWorkerd = () => {
  const dir = mkdtempSync(join(tmpdir(), "hookgate-bench-workerd-callgrind-"))
  const workerd = (createRequire(import.meta.url)("workerd") as { default: string }).default
  const script = join(dir, "workerd.sh")
  writeFileSync(
    script,
    `#!/bin/sh\nexec valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=${dir}/workerd.%p.cg ${workerd} "$@"\n`
  )
  chmodSync(script, 0o755)
  const control = (pid: number, ...args: ReadonlyArray<string>) => execFileSync("callgrind_control", [...args, String(pid)], { stdio: "ignore" })
  return {
    /** The path for MINIFLARE_WORKERD_PATH; the process's name (comm) is valgrind's tool's. */
    path: script,
    comm: "callgrind-amd64",
    count: async (pid: number, act: () => Promise<void>) => {
      control(pid, "--instr=on")
      control(pid, "--zero")
      await act()
      control(pid, "--dump")
      return summary(join(dir, `workerd.${pid}.cg.1`))
    },
    dispose: () => rmSync(dir, { recursive: true, force: true })
  }
}
