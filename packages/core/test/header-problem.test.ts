import { headerProblem, OutgoingEmail } from "@hookgate/core/mail"
import { describe, expect, it } from "vitest"

const email = (fields: Partial<ConstructorParameters<typeof OutgoingEmail>[0]>) =>
  new OutgoingEmail({ from: "shop@example.com", to: "buyer@example.com", subject: "Your order", text: "Thanks\r\nfor it", ...fields })

describe("headerProblem: one rule for every header-bound value", () => {
  it("refuses CR, LF and other control characters in from, to, subject, reply-to and extra headers, naming the field only", () => {
    const bad = "Widget\r\nBcc: victim@example.com"
    const cases = [
      [{ subject: bad }, "subject"],
      [{ subject: "a\nb" }, "subject"],
      [{ subject: "a\rb" }, "subject"],
      [{ subject: "a\u0000b" }, "subject"],
      [{ from: `Shop\n <shop@example.com>` }, "from"],
      [{ to: "buyer@example.com\r\nCc: x@example.com" }, "to"],
      [{ replyTo: "help@example.com\nBcc: x@example.com" }, "replyTo"],
      [{ headers: { "X-Order": bad } }, "X-Order"]
    ] as const
    for (const [fields, name] of cases) {
      const problem = headerProblem(email(fields))
      expect({ name, problem }).toEqual({ name, problem: expect.stringContaining(name) })
      expect(problem).not.toContain("victim")
    }
    expect(headerProblem(email({ headers: { "X-Bad Name": "v" } }))).toContain("header field name")
    expect(headerProblem(email({ headers: { "X:Colon": "v" } }))).toContain("header field name")
  })

  it("lets ordinary values through: a tab, non-ASCII text, line breaks in the body", () => {
    expect(headerProblem(email({}))).toBeUndefined()
    expect(headerProblem(email({ subject: "Ihre Bestellung:\tÄpfel — 3×", headers: { "X-Order": "stripe:cs_1" }, replyTo: "help@example.com" })))
      .toBeUndefined()
  })
})
