import { describe, expect, it } from "@effect/vitest"
import { strip } from "../src/cli/plain-console.js"

describe("plain console", () => {
  it("strips colour codes from strings only", () => {
    expect(strip(["\u001b[31mred\u001b[0m", 1])).toEqual(["red", 1])
    expect(strip(["\u001b[1;32mgreen\u001b[0m"])).toEqual(["green"])
    expect(strip(["{\"message\":\"webhook\"}"])).toEqual(["{\"message\":\"webhook\"}"])
  })
})
