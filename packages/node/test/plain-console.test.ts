import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { strip, stripAll } from "../src/cli/plain-console.js"

// `strip` hands back a lone string with no escape character as it is (every log line of
// `serve`); `stripAll`, the general path, maps every argument. They must agree.
const piece = fc.oneof(
  fc.string(),
  fc.constantFrom("\u001b[31m", "\u001b[0m", "\u001b[1;32m", "\u001b", "\u001b[", "{\"message\":\"webhook\"}")
)
const text = fc.array(piece, { maxLength: 6 }).map((parts) => parts.join(""))
const arg = fc.oneof(text, fc.integer(), fc.constant(null), fc.constant(undefined), fc.constant({ a: "\u001b[31m" }))

describe("plain console", () => {
  it("strips colour codes from strings only", () => {
    expect(strip(["\u001b[31mred\u001b[0m", 1])).toEqual(["red", 1])
    expect(strip(["\u001b[1;32mgreen\u001b[0m"])).toEqual(["green"])
    expect(strip(["{\"message\":\"webhook\"}"])).toEqual(["{\"message\":\"webhook\"}"])
  })

  it("the fast path agrees with the general one (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.tuple(text), fc.array(arg, { maxLength: 4 })), (args) => {
        expect(strip(args)).toEqual(stripAll(args))
      }),
      { numRuns: 2000, seed: 20261204 }
    )
  })
})
