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

/** The seed of shard `index` of a run seeded `seed`: shards are independent, and each a function of both. */
export const shardSeed = (seed: number, index: number): number => {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35)
  h ^= h >>> 16
  h = Math.imul(h, 0x7feb352d)
  h ^= h >>> 15
  return h >>> 0
}
