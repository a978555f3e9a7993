/** A shard: units [first, last) of a run, simulated in a world of its own and seeded by its index. */
export interface Shard {
  readonly index: number
  readonly first: number
  readonly last: number
}

/** Which shards of a run to simulate: all, or the range [from, to) (to split a run across workers). */
export interface ShardRange {
  readonly from: number
  readonly to: number
}

/** The shards of `units` units, `size` each; only those in `range` when given. */
export const shardsOf = (units: number, size: number, range?: ShardRange): ReadonlyArray<Shard> => {
  const all = Array.from({ length: Math.ceil(units / size) }, (_, index) => ({
    index,
    first: index * size,
    last: Math.min(units, (index + 1) * size)
  }))
  return range === undefined ? all : all.slice(range.from, range.to)
}
