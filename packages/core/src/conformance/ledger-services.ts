import type { CampaignStore } from "../campaigns/campaign-store.js"
import type { DeadLetterStore } from "../queue/dead-letters.js"
import type { Lease } from "../orders/lease.js"
import type { MessageLedger } from "../queue/message-ledger.js"
import type { OrderStore } from "../orders/order-store.js"

/** What a store under the ledger suites provides: the ledgers, and the order store (where alerts are kept). */
export type LedgerServices = OrderStore | Lease | MessageLedger | DeadLetterStore | CampaignStore
