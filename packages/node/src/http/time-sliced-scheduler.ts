import { FiberRef, Layer, Scheduler } from "effect"
import type { RuntimeFiber } from "effect/Fiber"

/**
 * An Effect `Scheduler` that hands the event loop back to Node every `sliceMs` of fiber work, so
 * that the server keeps accepting connections under load.
 *
 * Why: libuv (1.45 and later, so Node 20) accepts one connection per turn of the event loop and
 * relies on the listening socket staying readable for the next. Effect's default scheduler runs
 * every fiber that is ready in microtasks, within the same turn, so a busy gateway's turns grew
 * to ~65 ms (500 connections, 2 cores): 15 accepts a second, and a burst of new connections
 * waited in the kernel's accept queue for tens of seconds, before any handler could see them.
 *
 * How: a turn's budget starts with the first fiber work of the turn and ends in the turn's check
 * phase (`setImmediate`). Within the budget, tasks run in microtasks as with the default
 * scheduler; past it, a fiber yields at its next check (as it starts or resumes, then every 64
 * steps) and every task waits for a `setImmediate`, which Node runs after the next poll for
 * I/O, where libuv accepts. The order of tasks is kept (priorities first, then first in, first
 * out).
 */
export interface TimeSlicedScheduler extends Scheduler.Scheduler {
  /** How many times a drain stopped on a spent budget, since the scheduler was made (for tests). */
  readonly slicedTurns: () => number
}

/** How many steps a fiber runs between two looks at the clock. */
const CHECK_EVERY = 64

export const timeSlicedScheduler = (options: { readonly sliceMs: number }): TimeSlicedScheduler => {
  const { sliceMs } = options
  let queue = new Scheduler.PriorityBuckets()
  /** When the current turn's fiber work began; undefined between turns. */
  let turnStart: number | undefined
  let checkPending = false
  let microtaskPending = false
  let sliced = 0

  const endTurn = () => {
    checkPending = false
    turnStart = undefined
    drain()
  }

  /** Whether this turn's budget is spent; the first look of a turn starts its budget and arms its end. */
  const exhausted = (): boolean => {
    const now = performance.now()
    if (turnStart === undefined) turnStart = now
    if (!checkPending) {
      checkPending = true
      setImmediate(endTurn)
    }
    return now - turnStart > sliceMs
  }

  const drainMicrotask = () => {
    microtaskPending = false
    drain()
  }

  /** Runs the queued tasks in order until none is left or the turn's budget is spent. */
  const drain = () => {
    while (queue.buckets.length > 0) {
      const buckets = queue.buckets
      queue = new Scheduler.PriorityBuckets()
      for (let b = 0; b < buckets.length; b++) {
        const [priority, tasks] = buckets[b]!
        for (let i = 0; i < tasks.length; i++) {
          if (exhausted()) {
            sliced++
            requeue(buckets, b, i, priority)
            return
          }
          tasks[i]!()
        }
      }
    }
  }

  /** Puts the tasks not yet run back in front of those scheduled meanwhile. */
  const requeue = (buckets: Array<[number, Array<Scheduler.Task>]>, b: number, i: number, priority: number) => {
    const newer = queue.buckets
    queue = new Scheduler.PriorityBuckets()
    const tasks = buckets[b]![1]
    for (let k = i; k < tasks.length; k++) queue.scheduleTask(tasks[k]!, priority)
    for (let c = b + 1; c < buckets.length; c++) {
      for (const task of buckets[c]![1]) queue.scheduleTask(task, buckets[c]![0])
    }
    for (const [p, rest] of newer) for (const task of rest) queue.scheduleTask(task, p)
  }

  return {
    scheduleTask: (task: Scheduler.Task, priority: number) => {
      queue.scheduleTask(task, priority)
      // A drain is already due in this turn's microtasks, or (past the budget) at the turn's end.
      if (microtaskPending || exhausted()) return
      microtaskPending = true
      queueMicrotask(drainMicrotask)
    },
    shouldYield: (fiber: RuntimeFiber<unknown, unknown>) => {
      // Effect's own rule first (a fiber past its steps before yielding), then the clock: as a
      // fiber starts or resumes (step 1), then every CHECK_EVERY steps.
      const byOps = Scheduler.defaultShouldYield(fiber)
      if (byOps !== false) return byOps
      const ops = fiber.currentOpCount
      return (ops === 1 || ops % CHECK_EVERY === 0) && exhausted() ? fiber.getFiberRef(FiberRef.currentSchedulingPriority) : false
    },
    slicedTurns: () => sliced
  }
}

/**
 * The slice `hookgate serve` gives fiber work per turn of the event loop. At 5 ms a gateway
 * saturated by 500 connections turned about 130 times a second (so accepted as many); the
 * default scheduler's turns took about 65 ms there.
 */
export const SERVE_SLICE_MS = 5

/** Runs the fibers of the layers it is provided to (and their children) on a fresh time-sliced scheduler. */
export const layerTimeSlicedScheduler: Layer.Layer<never> = Layer.suspend(() =>
  Layer.setScheduler(timeSlicedScheduler({ sliceMs: SERVE_SLICE_MS }))
)
