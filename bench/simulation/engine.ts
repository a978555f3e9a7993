import { Clock, Duration, Effect, type Exit, type Fiber, FiberRef, type Scheduler } from "effect"
import { RealIo } from "./real-io.js"

/**
 * A discrete-event runtime for the simulation: a controllable `Scheduler` (a
 * FIFO of fiber tasks, run synchronously) and a `Clock` whose sleeps are
 * timers in a heap. The driver runs every ready task, and when none is left,
 * moves time straight to the earliest timer. This is `TestClock`'s model (time
 * moves only when every fiber is suspended) without its polling: `TestClock`
 * detects quiescence with real `setTimeout`s and walks every fiber per wake-up,
 * which made the simulation spend most of its time idle.
 *
 * On the memory and SQLite stores everything the simulated code does is
 * synchronous (node:crypto too), so the run is a pure function of its inputs: the
 * same seed gives the same interleaving, the same faults and the same table.
 * On D1 and Postgres the store's calls are real I/O: `runAsync` drives those
 * worlds, waiting for the calls in flight (`RealIo`) before it runs another task
 * and never moving time while one is under way.
 */

interface Timer {
  readonly at: number
  readonly seq: number
  readonly wake: () => void
  cancelled: boolean
}

/** A binary min-heap of timers by (at, seq): ties wake in the order they were set. */
class TimerHeap {
  private readonly items: Array<Timer> = []
  get size() {
    return this.items.length
  }
  private less(a: Timer, b: Timer) {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq)
  }
  push(timer: Timer) {
    const items = this.items
    items.push(timer)
    let i = items.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.less(items[i]!, items[parent]!)) break
      ;[items[i], items[parent]] = [items[parent]!, items[i]!]
      i = parent
    }
  }
  pop(): Timer | undefined {
    const items = this.items
    const top = items[0]
    const last = items.pop()
    if (items.length > 0 && last !== undefined) {
      items[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1, r = l + 1
        let smallest = i
        if (l < items.length && this.less(items[l]!, items[smallest]!)) smallest = l
        if (r < items.length && this.less(items[r]!, items[smallest]!)) smallest = r
        if (smallest === i) break
        ;[items[i], items[smallest]] = [items[smallest]!, items[i]!]
        i = smallest
      }
    }
    return top
  }
}

/** One simulated world: its scheduler, its clock and the driver that runs them. */
export class Simulation {
  private tasks: Array<() => void> = []
  private readonly timers = new TimerHeap()
  private seq = 0
  now: number

  /**
   * `wholeMillis`: the clock reads whole milliseconds, as a real one does (the
   * timers keep their fractions): the worlds on real stores read time this way.
   * (The stores floor every time they keep anyway, `EpochMillis` in core; the D1
   * and Postgres tables were measured with this clock.)
   */
  constructor(start = 0, private readonly wholeMillis = false) {
    this.now = start
  }

  private millis() {
    return this.wholeMillis ? Math.floor(this.now) : this.now
  }

  /** Jittered sleeps make the time fractional milliseconds, as with `TestClock`. */
  private nanos() {
    return BigInt(Math.round(this.now * 1_000_000))
  }

  readonly scheduler: Scheduler.Scheduler = {
    scheduleTask: (task) => void this.tasks.push(task),
    shouldYield: (fiber) =>
      fiber.currentOpCount > fiber.getFiberRef(FiberRef.currentMaxOpsBeforeYield)
        ? fiber.getFiberRef(FiberRef.currentSchedulingPriority)
        : false
  }

  readonly clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => this.millis(),
    currentTimeMillis: Effect.sync(() => this.millis()),
    unsafeCurrentTimeNanos: () => this.nanos(),
    currentTimeNanos: Effect.sync(() => this.nanos()),
    sleep: (duration) =>
      Effect.async<void>((resume) => {
        const millis = Duration.toMillis(duration)
        if (!Number.isFinite(millis)) return // never wakes
        const timer: Timer = { at: this.now + Math.max(0, millis), seq: this.seq++, wake: () => resume(Effect.void), cancelled: false }
        this.timers.push(timer)
        return Effect.sync(() => {
          timer.cancelled = true
        })
      })
  }

  /** Runs every ready task, including those they schedule. */
  private drain() {
    while (this.tasks.length > 0) {
      const batch = this.tasks
      this.tasks = []
      for (const task of batch) task()
    }
  }

  /** Moves time to the earliest live timer and wakes it; false when no timer is left. */
  private advance(): boolean {
    for (;;) {
      const timer = this.timers.pop()
      if (timer === undefined) return false
      if (timer.cancelled) continue
      this.now = Math.max(this.now, timer.at)
      timer.wake()
      return true
    }
  }

  private fork<A, E>(effect: Effect.Effect<A, E>): Fiber.RuntimeFiber<A, E> {
    return Effect.runFork(Effect.withClock(effect, this.clock), { scheduler: this.scheduler })
  }

  /** Runs `effect` to its end in this world, synchronously. */
  run<A, E>(effect: Effect.Effect<A, E>): Exit.Exit<A, E> {
    const fiber = this.fork(effect)
    for (;;) {
      this.drain()
      const exit = fiber.unsafePoll()
      if (exit !== null) return exit
      if (!this.advance()) throw stalled()
    }
  }

  /**
   * Runs `effect` to its end in this world, whose store makes real I/O through
   * `io`: the calls made by each task (or, in `rounds`, by every ready task) are
   * awaited (`RealIo.settle`) before the next task runs, and time moves only
   * when no call is in flight.
   */
  async runAsync<A, E>(effect: Effect.Effect<A, E>, io: RealIo): Promise<Exit.Exit<A, E>> {
    RealIo.active = io
    try {
      const fiber = this.fork(effect)
      for (;;) {
        if (io.rounds) this.drain()
        while (this.tasks.length > 0) {
          const batch = this.tasks
          this.tasks = []
          for (let i = 0; i < batch.length; i++) {
            batch[i]!()
            if (io.pending > 0) await io.settle(() => i + 1 < batch.length || this.tasks.length > 0)
          }
        }
        const exit = fiber.unsafePoll()
        if (exit !== null) return exit
        if (io.pending > 0) await io.settle(() => this.tasks.length > 0)
        else if (!this.advance()) throw stalled()
      }
    } finally {
      if (RealIo.active === io) RealIo.active = undefined
    }
  }
}

const stalled = () => new Error("simulation stalled: a fiber waits on something that is neither a task nor a timer")

/**
 * Runs `effect` in a fresh simulated world starting at time 0, as an Effect:
 * synchronously, or driven by `runAsync` when the world's store makes real I/O through `io`.
 */
export const simulated = <A, E>(effect: Effect.Effect<A, E>, io?: RealIo): Effect.Effect<A, E> =>
  io === undefined
    ? Effect.suspend(() => new Simulation().run(effect))
    : Effect.flatten(Effect.promise(() => new Simulation(0, true).runAsync(effect, io)))
