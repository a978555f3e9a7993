import { describe, expect, it } from "@effect/vitest"
import { SendReceipt } from "@hookgate/core/mail"
import { FastCheck as fc } from "effect"

// `new SendReceipt(props)` skips Schema's validation for plainly valid fields (two strings
// and a number); `new SendReceipt(props, false)` always runs it. Both must build the same
// receipt or refuse with the same error.
const built = (make: () => SendReceipt) => {
  try {
    const receipt = make()
    return { ok: true, keys: Object.keys(receipt), fields: { ...receipt }, isReceipt: receipt instanceof SendReceipt }
  } catch (error) {
    return { ok: false, error: String(error) }
  }
}

const sameEitherWay = (props: unknown) => {
  const fast = built(() => new SendReceipt(props as ConstructorParameters<typeof SendReceipt>[0]))
  const validated = built(() => new SendReceipt(props as ConstructorParameters<typeof SendReceipt>[0], false))
  expect(fast).toEqual(validated)
  return fast
}

const value = fc.oneof(
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.constant(undefined),
  fc.constant(null),
  fc.constant({}),
  fc.constant(NaN)
)
const key = fc.constantFrom("mailer", "messageId", "acceptedAt", "extra")

describe("SendReceipt", () => {
  it("builds plainly valid fields as the schema does, an extra field dropped", () => {
    expect(sameEitherWay({ mailer: "resend", messageId: "m_1", acceptedAt: 1_700_000_000_000, extra: "dropped" })).toEqual({
      ok: true,
      keys: ["mailer", "messageId", "acceptedAt"],
      fields: { mailer: "resend", messageId: "m_1", acceptedAt: 1_700_000_000_000 },
      isReceipt: true
    })
  })

  it("refuses what the schema refuses, with its error: a wrong type, a missing or inherited field", () => {
    const valid = { mailer: "resend", messageId: "m_1", acceptedAt: 1 }
    for (const props of [
      { ...valid, mailer: 1 },
      { ...valid, messageId: null },
      { ...valid, acceptedAt: "1" },
      { mailer: valid.mailer, messageId: valid.messageId },
      Object.assign(Object.create({ acceptedAt: 1 }), { mailer: valid.mailer, messageId: valid.messageId })
    ]) {
      expect(sameEitherWay(props)).toMatchObject({ ok: false })
    }
  })

  it("agrees with the schema on any mix of fields (property)", () => {
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 4 }), fc.boolean(), (props, complete) => {
        sameEitherWay(complete ? { mailer: "resend", messageId: "m_1", acceptedAt: 1, ...props } : props)
      }),
      { numRuns: 2000, seed: 20261203 }
    )
  })
})
