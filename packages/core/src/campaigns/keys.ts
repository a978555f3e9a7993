import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js"

const MAX_KEY_LENGTH = 256 // Resend's limit

const fit = (key: string, prefix: string, tail: string) =>
  key.length <= MAX_KEY_LENGTH ? key : `${prefix}sha256-${bytesToHex(sha256(utf8ToBytes(tail)))}`

/**
 * The idempotency key of a campaign batch: the same for every retry of that
 * batch, which is safe because its membership is fixed when it is reserved.
 */
export const campaignBatchKey = (campaignId: string, batch: number): string =>
  `hookgate/campaign/${campaignId}/batch/${batch}`

/** The per-recipient key, for mailers without batch sending (and a rejected batch sent one by one). */
export const campaignRecipientKey = (campaignId: string, email: string): string =>
  fit(`hookgate/campaign/${campaignId}/to/${email}`, `hookgate/campaign/${campaignId}/to/`, email)
