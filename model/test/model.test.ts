import { describe, expect, it } from "vitest"
// @ts-expect-error: a plain ESM script without types
import { checks, runCheck, toolsMissing } from "../checks.mjs"

interface Check {
  readonly name: string
  readonly model: string
  readonly defines: ReadonlyArray<string>
  readonly expect: "hold" | "violation"
  readonly violates?: string
}
interface Result extends Check {
  readonly ok: boolean
  readonly errors: number
  readonly states: number
  readonly violation: string | null
  readonly truncated: boolean
}
const all = checks as ReadonlyArray<Check>
const check = (name: string): Promise<Result> => runCheck(all.find((c) => c.name === name)!)

describe("the lease protocol, model-checked by spin", () => {
  it("has spin and gcc (CI installs spin when missing)", async () => {
    expect(await toolsMissing()).toEqual([])
  })

  for (const c of all.filter((c) => c.expect === "hold")) {
    it(`holds exhaustively: ${c.name}`, async () => {
      const result = await check(c.name)
      expect(result.violation).toBeNull()
      expect(result.errors).toBe(0)
      expect(result.truncated).toBe(false)
      expect(result.states).toBeGreaterThan(100_000) // the search really ran
    }, 120_000)
  }

  // Each mutant breaks one step on purpose: spin must find the property it protects violated.
  for (const c of all.filter((c) => c.expect === "violation")) {
    it(`finds the counterexample: ${c.name}`, async () => {
      const result = await check(c.name)
      expect(result.errors).toBeGreaterThan(0)
      expect(result.violation).toContain(c.violates)
      expect(result.ok).toBe(true)
    }, 120_000)
  }
})
