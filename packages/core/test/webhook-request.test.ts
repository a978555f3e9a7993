import { describe, expect, it } from "@effect/vitest"
import { WebhookRequest } from "@hookgate/core/providers"

const utf8 = (text: string) => new TextEncoder().encode(text)

describe("WebhookRequest.fromParts", () => {
  it("lower-cases the names and joins a repeated header, from a record or from entries", () => {
    const fromRecord = WebhookRequest.fromParts(utf8("{}"), { "Stripe-Signature": "t=1,v1=ab", "Content-Type": "application/json" })
    expect(fromRecord.headers).toEqual({ "stripe-signature": "t=1,v1=ab", "content-type": "application/json" })
    const fromEntries = WebhookRequest.fromParts(utf8("{}"), [["X-Sig", "a"], ["x-sig", "b"]])
    expect(fromEntries.headers).toEqual({ "x-sig": "a, b" })
    expect(fromEntries.header("X-SIG")).toBe("a, b")
  })

  it("still refuses what its schema refuses: a body that is not bytes, a header value that is not a string", () => {
    expect(() => WebhookRequest.fromParts("{}" as unknown as Uint8Array, {})).toThrow(/Uint8Array/)
    expect(() => WebhookRequest.fromParts(utf8("{}"), { "x-count": 3 } as unknown as Record<string, string>)).toThrow(/string/)
  })
})
