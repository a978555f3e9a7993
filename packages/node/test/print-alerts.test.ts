import { Alert } from "@hookgate/core/alerts"
import { Effect } from "effect"
import { describe, expect, it, vi } from "vitest"
import { printAlerts } from "../src/cli/print.js"

/** What `hookgate alerts list` prints for these alerts. */
const printed = (alerts: ReadonlyArray<Alert>) => {
  const lines: Array<string> = []
  const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => void lines.push(args.join(" ")))
  try {
    Effect.runSync(printAlerts(alerts))
  } finally {
    spy.mockRestore()
  }
  return lines.join("\n")
}

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0)
const alert = (id: string, fields: Partial<ConstructorParameters<typeof Alert>[0]>) =>
  new Alert({ id, kind: "capped", orderKey: `test:${id}`, message: `order ${id} capped`, createdAt: T0, deliveredAt: null, deliveryError: null, ...fields })

describe("hookgate alerts list", () => {
  it("shows each alert's attempts and its next attempt, or that the sweep gave up on it", () => {
    const out = printed([
      alert("retrying", { deliveryError: "channel down", attempts: 2, nextAttemptAt: T0 + 180_000 }),
      alert("given-up", { deliveryError: "channel down", attempts: 8, nextAttemptAt: null }),
      alert("delivered", { deliveredAt: T0 + 1_000, attempts: 1 })
    ])
    const [header, ...rows] = out.split("\n")
    expect(header).toMatch(/delivered\s+attempts\s+next attempt\s+message/)
    expect(rows[0]).toMatch(/test:retrying\s+failed: channel down\s+2\s+2026-11-30T12:03:00.000Z/)
    expect(rows[1]).toMatch(/test:given-up\s+failed: channel down\s+8\s+gave up/)
    expect(rows[2]).toMatch(/test:delivered\s+2026-11-30T12:00:01.000Z\s+1\s+-/)
  })
})
