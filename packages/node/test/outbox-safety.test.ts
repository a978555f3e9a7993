import { describe, expect, it } from "@effect/vitest"
import { OutgoingEmail } from "@hookgate/core/mail"
import { OutboxMailer } from "@hookgate/node"
import { Effect } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import PostalMime from "postal-mime"
import { tempDir } from "./support/gateway-process.js"

const email = (overrides: Partial<ConstructorParameters<typeof OutgoingEmail>[0]> = {}) =>
  new OutgoingEmail({
    from: "Shop <shop@example.com>",
    to: "buyer@example.com",
    subject: "Your licence: Pro ✓",
    text: "Your key is ABCD-1234.\nDanke schön, ünïcode survives.",
    ...overrides
  })

describe("the outbox: names, headers and bodies", () => {
  it.effect("ids that used to collide or overflow get distinct names of a bounded length in a fixed alphabet", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const mailer = yield* OutboxMailer.make(dir)
      const keys = [
        "hookgate/order/stripe:a/b",
        "hookgate/order/stripe:a_b",
        "hookgate/order/stripe:a:b",
        "hookgate/order/creem:" + "x".repeat(300),
        "hookgate/order/creem:" + "x".repeat(299) + "y",
        "hookgate/order/creem:ünï\u0000\r\n€😀",
        ".hidden"
      ]
      for (const key of keys) yield* mailer.send(email(), { idempotencyKey: key })
      const names = readdirSync(dir)
      expect(names).toHaveLength(keys.length)
      for (const name of names) {
        expect(name).toMatch(/^[A-Za-z0-9._+~-]+\.eml$/)
        expect(name.startsWith(".")).toBe(false)
        expect(name.length).toBeLessThanOrEqual(200)
      }
    }))

  it.effect("CR/LF in an address, the subject or a header is refused, never written as extra headers", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const mailer = yield* OutboxMailer.make(dir)
      for (
        const bad of [
          { to: "buyer@example.com\r\nBcc: thief@example.com" },
          { subject: "Hello\r\nBcc: thief@example.com" },
          { subject: "Hello\nSubject: second" },
          { replyTo: "help@example.com\nBcc: thief@example.com" },
          { headers: { "X-Note": "a\r\nBcc: thief@example.com" } }
        ]
      ) {
        const error = yield* Effect.flip(mailer.send(email(bad), { idempotencyKey: "hookgate/order/stripe:inject" }))
        expect(error._tag).toBe("Rejected")
        expect(error.message).toContain("line break")
      }
      expect(readdirSync(dir).filter((f) => f.endsWith(".eml"))).toEqual([])
    }))

  it.effect("a key with a line break or non-Latin characters stays one header line, readable back", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const receipt = yield* (yield* OutboxMailer.make(dir)).send(email(), { idempotencyKey: "hookgate/order/creem:a\r\nBcc: x@y.z ✓" })
      const raw = readFileSync(receipt.messageId, "utf8").replace(/\r\n(?=[ \t])/g, "") // unfolded
      expect(raw).not.toMatch(/^Bcc:/m)
      const header = /^X-Hookgate-Idempotency-Key: (.*)$/m.exec(raw)![1]!
      expect(decodeURIComponent(header.trim())).toBe("hookgate/order/creem:a\r\nBcc: x@y.z ✓")
    }))

  it.effect("bodies are readable text (quoted-printable, not base64) and parse back exactly", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const text = "Your key is ABCD-1234.\nDanke schön, ünïcode survives.\n" + "long line ".repeat(30)
      const receipt = yield* (yield* OutboxMailer.make(dir)).send(email({ text, html: "<p>Danke schön</p>" }), { idempotencyKey: "k" })
      const raw = readFileSync(receipt.messageId, "utf8")
      expect(raw).not.toMatch(/Content-Transfer-Encoding: base64/i)
      expect(raw).toMatch(/Content-Transfer-Encoding: quoted-printable/i)
      expect(raw).toContain("Your key is ABCD-1234.")
      const parsed = yield* Effect.promise(() => PostalMime.parse(raw))
      expect(parsed.text?.replace(/\r\n/g, "\n").trimEnd()).toBe(text.trimEnd())
      expect(parsed.subject).toBe("Your licence: Pro ✓")
      expect(parsed.html).toContain("Danke schön")
    }))
})
