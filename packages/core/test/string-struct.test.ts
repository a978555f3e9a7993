import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { eitherDecoderFor } from "../src/providers/payload.js"
import { stringStructCheck } from "../src/providers/string-struct.js"

const Envelope = Schema.Struct({ id: Schema.NonEmptyString, type: Schema.String.pipe(Schema.maxLength(12)) })

const inputs: ReadonlyArray<unknown> = [
  { id: "evt_1", type: "paid" },
  { id: "evt_1", type: "paid", data: { object: {} }, extra: 1 },
  { id: "", type: "paid" },
  { id: "evt_1", type: "a type that is far too long" },
  { id: "evt_1" },
  { id: 1, type: "paid" },
  { id: null, type: "paid" },
  Object.assign(Object.create({ id: "inherited" }), { type: "paid" }),
  JSON.parse(`{"__proto__":"evt_p","id":"evt_1","type":"paid"}`),
  [],
  null,
  "evt_1",
  42
]

describe("the envelope check", () => {
  it("answers exactly what decoding the struct answers, whenever it answers; the decoder agrees with the schema on every input", () => {
    const check = stringStructCheck(Envelope.ast)!
    const decode = Schema.decodeUnknownEither(Envelope)
    const decoder = eitherDecoderFor("acme", "event", Envelope)
    const answered: Array<unknown> = []
    for (const input of inputs) {
      const checked = check(input)
      const decoded = decode(input)
      if (checked !== undefined) {
        answered.push(input)
        expect(Either.getOrThrow(decoded)).toEqual(checked)
      }
      // Where the check does not answer (a failure, or an inherited field it leaves to the schema), the schema does.
      expect(Either.isRight(decoder(input))).toBe(Either.isRight(decoded))
      if (Either.isRight(decoded)) expect(Either.getOrThrow(decoder(input))).toEqual(decoded.right)
    }
    expect(answered).toEqual([inputs[0], inputs[1], inputs[8]])
  })

  it("is undefined for what it cannot answer: renames, optional fields, non-string fields, records", () => {
    const schemas = [
      Schema.rename(Schema.Struct({ id: Schema.String, eventType: Schema.String }), { eventType: "type" }),
      Schema.Struct({ id: Schema.optional(Schema.String), type: Schema.String }),
      Schema.Struct({ id: Schema.String, type: Schema.Literal("paid") }),
      Schema.Struct({ id: Schema.Trim, type: Schema.String }),
      Schema.Record({ key: Schema.String, value: Schema.String }),
      Schema.Struct({ id: Schema.String }).pipe(Schema.filter(() => true))
    ]
    for (const schema of schemas) expect(stringStructCheck(schema.ast)).toBeUndefined()
  })

  it("leaves the decoder's failures and their messages to the schema", () => {
    const decode = eitherDecoderFor("acme", "event", Envelope)
    expect(decode({ id: "evt_1", type: "paid", more: true })).toEqual(Either.right({ id: "evt_1", type: "paid" }))
    const failure = decode({ id: "", type: "paid" })
    expect(Either.isLeft(failure) && failure.left).toMatchObject({ _tag: "MalformedPayload", provider: "acme" })
    expect(Either.isLeft(failure) && failure.left.detail).toMatch(/^event: id: /)
  })
})
