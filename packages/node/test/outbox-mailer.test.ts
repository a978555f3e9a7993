import { describe, expect, it } from "@effect/vitest"
import { OutgoingEmail } from "@hookgate/core/mail"
import { OutboxMailer } from "@hookgate/node"
import { Effect } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import PostalMime from "postal-mime"
import { tempDir } from "./support/gateway-process.js"

const email = new OutgoingEmail({
  from: "Shop <shop@example.com>",
  to: "buyer@example.com",
  subject: "Your licence: Pro ✓",
  text: "Your key is ABCD-1234.\nThanks!",
  replyTo: "help@example.com"
})

describe("the outbox mailer", () => {
  it.effect("writes a parseable .eml named after the idempotency key (escaped: `_` and the hex of each other character)", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const receipt = yield* (yield* OutboxMailer.make(dir)).send(email, { idempotencyKey: "hookgate/order/stripe:cs_1" })
      expect(readdirSync(dir)).toEqual(["hookgate_2forder_2fstripe_3acs_5f1.eml"])
      expect(receipt.messageId).toBe(join(dir, "hookgate_2forder_2fstripe_3acs_5f1.eml"))
      const parsed = yield* Effect.promise(() => PostalMime.parse(readFileSync(receipt.messageId)))
      expect(parsed.subject).toBe("Your licence: Pro ✓")
      expect(parsed.to?.[0]?.address).toBe("buyer@example.com")
      expect(parsed.from?.address).toBe("shop@example.com")
      expect(parsed.text?.trim()).toBe("Your key is ABCD-1234.\nThanks!")
      expect(parsed.headers.find((h) => h.key === "x-hookgate-idempotency-key")?.value).toBe("hookgate/order/stripe:cs_1")
    }))

  it.effect("a second accepted send under one key is a visible collision, not an overwrite", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const mailer = yield* OutboxMailer.make(dir)
      expect(mailer.honoursIdempotencyKeys).toBe(false)
      yield* mailer.send(email, { idempotencyKey: "hookgate/order/creem:ord_1" })
      yield* mailer.send(email, { idempotencyKey: "hookgate/order/creem:ord_1" })
      expect(readdirSync(dir).sort()).toEqual(["hookgate_2forder_2fcreem_3aord_5f1.eml", "hookgate_2forder_2fcreem_3aord_5f1~2.eml"])
    }))
})
