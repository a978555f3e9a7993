import { describe, expect, it } from "@effect/vitest"
import { OutgoingEmail } from "@hookgate/core/mail"
import { FastCheck as fc } from "effect"

// `new OutgoingEmail(props)` skips Schema's validation for a plainly valid email;
// `new OutgoingEmail(props, false)` always runs it. Both must build the same email
// or refuse with the same error.
const built = (make: () => OutgoingEmail) => {
  try {
    const email = make()
    return { ok: true, keys: Object.keys(email), fields: { ...email }, isEmail: email instanceof OutgoingEmail }
  } catch (error) {
    return { ok: false, error: String(error) }
  }
}

const sameEitherWay = (props: unknown) => {
  const fast = built(() => new OutgoingEmail(props as ConstructorParameters<typeof OutgoingEmail>[0]))
  const validated = built(() => new OutgoingEmail(props as ConstructorParameters<typeof OutgoingEmail>[0], false))
  expect(fast).toEqual(validated)
  return fast
}

const text = fc.oneof(
  fc.constantFrom("", " ", "a", " a", "a ", "\tShop <shop@example.com>", "buyer@example.com", "Shop <shop@example.com>\n"),
  fc.string()
)
const value = fc.oneof(text, fc.constant(undefined), fc.constant(null), fc.integer(), fc.constant({}))
const key = fc.constantFrom("from", "to", "subject", "text", "html", "replyTo", "headers", "extra")

describe("OutgoingEmail", () => {
  it("builds a plainly valid email as the schema does: the same fields, extra ones dropped, an undefined optional kept", () => {
    const email = sameEitherWay({
      from: "Shop <shop@example.com>",
      to: "buyer@example.com",
      subject: "Your order",
      text: "Thanks",
      html: undefined,
      extra: "dropped"
    })
    expect(email).toEqual({
      ok: true,
      keys: ["from", "to", "subject", "text", "html"],
      fields: { from: "Shop <shop@example.com>", to: "buyer@example.com", subject: "Your order", text: "Thanks", html: undefined },
      isEmail: true
    })
  })

  it("refuses what the schema refuses, with its error: an untrimmed or empty address, a missing or inherited field", () => {
    const valid = { from: "shop@example.com", to: "buyer@example.com", subject: "s", text: "t" }
    for (const props of [
      { ...valid, from: " shop@example.com" },
      { ...valid, to: "" },
      { ...valid, subject: 1 },
      { ...valid, html: 2 },
      { from: valid.from, to: valid.to, subject: valid.subject },
      Object.assign(Object.create({ text: "inherited" }), { from: valid.from, to: valid.to, subject: valid.subject })
    ]) {
      expect(sameEitherWay(props)).toMatchObject({ ok: false, error: expect.stringContaining("OutgoingEmail") })
    }
  })

  it("validates headers with the schema, as before", () => {
    const valid = { from: "shop@example.com", to: "buyer@example.com", subject: "s", text: "t" }
    expect(sameEitherWay({ ...valid, headers: { "X-Tag": "a" } })).toMatchObject({ ok: true })
    expect(sameEitherWay({ ...valid, headers: { "X-Tag": 1 } })).toMatchObject({ ok: false })
  })

  it("agrees with the schema on any mix of fields (property)", () => {
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 8 }), fc.boolean(), (props, complete) => {
        const input = complete
          ? { from: "shop@example.com", to: "buyer@example.com", subject: "s", text: "t", ...props }
          : props
        sameEitherWay(input)
      }),
      { numRuns: 2000, seed: 20261201 }
    )
  })
})
