/**
 * A seeded PRNG (mulberry32) drawn synchronously inside the fault wrappers and
 * the workload; Effect's fibers interleave deterministically on the TestClock,
 * so one generator per run makes the whole run a function of its seed.
 */
export class Rng {
  private state: number
  constructor(seed: number) {
    this.state = seed >>> 0
  }
  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0)
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  chance(rate: number): boolean {
    return rate > 0 && this.next() < rate
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }
}
