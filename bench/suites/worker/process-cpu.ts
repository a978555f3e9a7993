import { readdirSync, readFileSync } from "node:fs"

/** Linux's USER_HZ: utime and stime in /proc/<pid>/stat count these ticks. */
const TICKS_PER_SECOND = 100

const statFields = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // After "pid (comm) ": state is field 3, ppid 4, utime 14, stime 15.
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
}

/** The process CPU (user + system) of `pid` so far, from /proc/<pid>/stat, in ms (10 ms resolution). */
export const processCpuMs = (pid: number): number => {
  const fields = statFields(pid)
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND
}

/**
 * The same CPU at nanosecond resolution: the time on CPU of each live thread of
 * `pid`, from /proc/<pid>/task/<tid>/schedstat (its first field), summed. For the
 * first request of an isolate, which takes a few ticks of /proc/<pid>/stat at most.
 */
export const processCpuMsPrecise = (pid: number): number => {
  let ns = 0
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0])
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return ns / 1e6
}

/** The pids of this process's children named `comm` (Miniflare's workerd). */
export const childPids = (comm: string): ReadonlyArray<number> =>
  readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).flatMap((entry) => {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"))
      return name === comm && Number(statFields(Number(entry))[1]) === process.pid ? [Number(entry)] : []
    } catch {
      return []
    }
  })
