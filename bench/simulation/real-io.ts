/**
 * Real I/O made from inside a simulated world (a D1 call to Miniflare, a
 * Postgres query): counted while in flight, and its completion held until the
 * world's driver releases it. The driver (`Simulation.runAsync`) never moves
 * simulated time while a call is under way, and releases completions in the
 * order the calls were made, so they re-enter the world in a deterministic order.
 *
 * Two ways to drive a world. In `rounds`, the driver runs every ready task,
 * then sends the calls they made (`flush`) and waits for them all: the D1
 * binding runs a round's calls one after another in the order they were made.
 * Otherwise the driver waits for the calls of each task before it runs the
 * next one (one call at a time, in the order the fibers make them: Postgres),
 * except when the calls in flight are `blocked`: a statement waiting on a row
 * lock that a transaction of another simulated fiber holds can only finish once
 * that fiber runs.
 */
export class RealIo {
  /** The world whose driver is running, for instrumentation that cannot be handed one (pg's prototypes). */
  static active: RealIo | undefined

  private inFlight = 0
  private seq = 0
  private held: Array<{ readonly seq: number; readonly deliver: () => void }> = []
  private wake: (() => void) | undefined
  /** Bumped by every start and finish; `blockedAt` is its value when the calls in flight were last found blocked. */
  private version = 0
  private blockedAt = -1

  constructor(
    private readonly options: {
      /** Whether every call in flight waits on something only the world's ready fibers can release. */
      readonly blocked?: (inFlight: number) => Promise<boolean>
      /** Sends the calls made so far (a binding that queues them). */
      readonly flush?: () => void
      /** Run every ready task before waiting for the calls they made. */
      readonly rounds?: boolean
    } = {}
  ) {}

  get rounds(): boolean {
    return this.options.rounds === true
  }

  /** Calls in flight or finished and not yet released. */
  get pending(): number {
    return this.inFlight + this.held.length
  }

  /** Marks a call started; answers what its completion calls with the thunk that delivers its result. */
  start(): (deliver: () => void) => void {
    const seq = this.seq++
    this.inFlight++
    this.version++
    let finished = false
    return (deliver) => {
      if (finished) return
      finished = true
      this.inFlight--
      this.version++
      this.held.push({ seq, deliver })
      this.wake?.()
    }
  }

  /** A promise-returning call, tracked. */
  promise<A>(call: () => Promise<A>): Promise<A> {
    const finish = this.start()
    return new Promise<A>((resolve, reject) => {
      try {
        call().then((a) => finish(() => resolve(a)), (error) => finish(() => reject(error)))
      } catch (error) {
        finish(() => reject(error))
      }
    })
  }

  /** A Node-style callback of a call, tracked: the call is in flight until it is called. */
  callback<F extends (...args: Array<any>) => unknown>(callback: F): F {
    const finish = this.start()
    return ((...args: Array<unknown>) => finish(() => void callback(...args))) as F
  }

  /**
   * Waits until no call is in flight and every completion is released (in call
   * order), or until the calls in flight are blocked and some task is `ready`
   * (when the blocked calls wait on a completion held here, it is released first).
   */
  async settle(ready: () => boolean): Promise<void> {
    if (this.blockedAt === this.version && ready()) return // nothing started or finished since they were found blocked
    let idleSince = Date.now()
    for (;;) {
      let blocked = false
      if (this.inFlight > 0) {
        this.options.flush?.()
        const canBlock = this.options.blocked !== undefined && (this.held.length > 0 || ready())
        if (await this.changed(canBlock ? 5 : 1_000)) {
          idleSince = Date.now()
          continue
        }
        const version = this.version
        blocked = canBlock && (await this.options.blocked!(this.inFlight)) && version === this.version
        if (blocked) this.blockedAt = version
        if (!blocked) {
          // A round of thousands of D1 calls is one request: the allowance grows with the calls in flight.
          if (Date.now() - idleSince > 120_000 + 100 * this.inFlight) {
            throw new Error(`simulation stalled: ${this.inFlight} real I/O call(s) unfinished for ${Math.round((Date.now() - idleSince) / 1000)} s`)
          }
          continue
        }
      }
      if (this.held.length > 0) {
        const released = this.held.sort((a, b) => a.seq - b.seq)
        this.held = []
        for (const { deliver } of released) deliver()
        // Promise continuations (an Effect resuming on a resolved promise) run before the next macrotask.
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
      if (this.pending === 0 || (blocked && ready())) return // blocked: the ready fibers run now
    }
  }

  /** True when a call finishes, false after `ms` without one (to check again whether the calls are blocked). */
  private changed(ms: number) {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined
        resolve(false)
      }, ms)
      this.wake = () => {
        this.wake = undefined
        clearTimeout(timer)
        resolve(true)
      }
    })
  }
}
