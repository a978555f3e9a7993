import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { ASCII_ADDR_SPEC, isAddrSpec, unicodeAddrSpec } from "../src/providers/email-address.js"

// The ASCII pattern is a fast path of the Unicode one: on ASCII text they must agree.

const asciiPart = fc.string({ unit: fc.constantFrom(..."aZ09.-_@+!#$%&'*/=?^`{|}~ \"(),:;<>[\\]\u007f\u0000"), maxLength: 30 })
const addressLike = fc.tuple(
  fc.string({ unit: fc.constantFrom(..."ab9.!#$%&'*+/=?^_`{|}~-"), minLength: 1, maxLength: 10 }),
  fc.array(fc.string({ unit: fc.constantFrom(..."aZ9-"), minLength: 1, maxLength: 64 }), { minLength: 1, maxLength: 3 })
).map(([local, labels]) => `${local}@${labels.join(".")}`)

describe("isAddrSpec", () => {
  it("agrees with the Unicode pattern on every ASCII string", () => {
    fc.assert(fc.property(fc.oneof(asciiPart, addressLike, fc.string({ maxLength: 40 })), (text) => {
      fc.pre(/^[\x00-\x7f]*$/.test(text))
      expect(ASCII_ADDR_SPEC.test(text)).toBe(unicodeAddrSpec().test(text))
      expect(isAddrSpec(text)).toBe(unicodeAddrSpec().test(text))
    }), { numRuns: 2000 })
  })

  it("accepts an address with non-ASCII letters and digits, and refuses non-ASCII punctuation", () => {
    expect(isAddrSpec("buyer@example.com")).toBe(true)
    expect(isAddrSpec("jörg.müller@bücher.de")).toBe(true)
    expect(isAddrSpec("用户@例子.广告")).toBe(true)
    expect(isAddrSpec("buyer@exa«mple.com")).toBe(false)
    expect(isAddrSpec("buyer@-example.com")).toBe(false)
    expect(isAddrSpec("buyer@example..com")).toBe(false)
    expect(isAddrSpec(`buyer@${"a".repeat(64)}.com`)).toBe(false)
    expect(isAddrSpec(`buyer@${"a".repeat(63)}.com`)).toBe(true)
  })
})
