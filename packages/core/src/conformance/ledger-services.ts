import type { CampaignStore } from "../services/campaign-store.js"
import type { DeadLetterStore } from "../services/dead-letters.js"
import type { Lease } from "../services/lease.js"
import type { MessageLedger } from "../services/message-ledger.js"
import type { OrderStore } from "../services/order-store.js"

/** What a store under the ledger suites provides: the ledgers, and the order store (where alerts are kept). */
export type LedgerServices = OrderStore | Lease | MessageLedger | DeadLetterStore | CampaignStore
