import { expect } from "@effect/vitest"
import type { CampaignTally } from "../simulation/campaign.js"
import type { QueueTally } from "../simulation/queue.js"
import type { OrderTally } from "../simulation/tally.js"

/** What every store's simulation must show; simulation.test.ts and the real-store slices share them. */

/** A key-honouring mailer inside its window: nothing lost, no duplicate, and the faults really happened. */
export const expectExactlyOnce = (tally: OrderTally, orders: number) => {
  expect(tally.lost).toBe(0)
  expect(tally.duplicates).toBe(0)
  expect(tally.accepted + tally.capped + tally.failed).toBeGreaterThanOrEqual(orders)
  expect(tally.faults.crashes).toBeGreaterThan(0) // the faults really happened
  expect(tally.faults.staleWrites).toBe(0)
  expect(tally.faults.defects).toBe(0)
}

/** A mailer that ignores keys: nothing lost, and every duplicate flagged. */
export const expectDuplicatesFlagged = (tally: OrderTally) => {
  expect(tally.lost).toBe(0)
  expect(tally.duplicates).toBeGreaterThan(0)
  expect(tally.unflagged).toBe(0)
  expect(tally.faults.defects).toBe(0)
}

/** Queue messages under a key-honouring mailer: none lost, none sent twice, with crashes. */
export const expectQueueExactlyOnce = (tally: QueueTally) => {
  expect(tally.lost).toBe(0)
  expect(tally.duplicates).toBe(0)
  expect(tally.faults.crashes).toBeGreaterThan(0)
  expect(tally.faults.defects).toBe(0)
}

/** A campaign: no recipient skipped, none sent twice, each one sent or failed. */
export const expectCampaignExact = (tally: CampaignTally, recipients: number) => {
  expect(tally.skipped).toBe(0)
  expect(tally.duplicates).toBe(0)
  expect(tally.emails + tally.failed).toBeGreaterThanOrEqual(recipients)
}
