import type { AlertStore } from "@hookgate/core/alerts"
import type { CampaignStore } from "@hookgate/core/campaigns"
import type { DeadLetterStore, MessageLedger } from "@hookgate/core/queue"

/** What a store under the ledger suites provides: the ledgers, and the alert store (no order store). */
export type LedgerServices = AlertStore | MessageLedger | DeadLetterStore | CampaignStore
