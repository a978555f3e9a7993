import { Effect, Layer, Tracer } from "effect"

/** The small harness every benchmark suite uses: figures, rates, and the shared table. */

export interface Figure {
  /** The key in bench/results.json. */
  readonly key: string
  readonly label: string
  readonly value: number
  readonly unit: string
}

export interface BenchSuite {
  readonly name: string
  /** Runs the suite and answers its figures; baselines run in the same call, side by side. */
  readonly run: () => Promise<ReadonlyArray<Figure>>
  /** Ratios to print under the figures: [label, numerator key, denominator key]. */
  readonly ratios?: ReadonlyArray<readonly [string, string, string]>
}

/**
 * Operations per second of `op`, run sequentially for about `seconds` after a
 * warm-up of a tenth of that.
 */
export const ratePerSecond = async (op: () => unknown, seconds = 2): Promise<number> => {
  const runFor = async (ms: number) => {
    const start = performance.now()
    let count = 0
    while (performance.now() - start < ms) {
      await op()
      count++
    }
    return count / ((performance.now() - start) / 1000)
  }
  await runFor(seconds * 100)
  return runFor(seconds * 1000)
}

export const figure = (key: string, label: string, value: number, unit: string): Figure => ({ key, label, value, unit })

/** The median of `values` (the mean of the middle two for an even count). */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/**
 * Counts the statements a SqlClient executes: @effect/sql opens one
 * "sql.execute" span per statement, so a tracer around the default one sees each.
 */
export const countingTracer = () => {
  let statements = 0
  const layer = Layer.unwrapEffect(Effect.map(Effect.tracer, (base) =>
    Layer.setTracer(Tracer.make({
      span: (name, ...rest) => {
        if (name === "sql.execute") statements++
        return base.span(name, ...rest)
      },
      context: base.context
    }))))
  return { layer, count: () => statements }
}
