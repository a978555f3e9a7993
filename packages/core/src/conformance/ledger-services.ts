import type { CampaignStore } from "../campaigns/campaign-store.js"
import type { DeadLetterStore } from "../queue/dead-letters.js"
import type { MessageLedger } from "../queue/message-ledger.js"
import type { AlertStore } from "../alerts/alert-store.js"

/** What a store under the ledger suites provides: the ledgers, and the alert store (no order store). */
export type LedgerServices = AlertStore | MessageLedger | DeadLetterStore | CampaignStore
