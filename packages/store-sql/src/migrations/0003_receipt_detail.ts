/**
 * Why a verified paying event made no order: the decoding error and the
 * provider's object id, on its receipt (`unfulfillable` and `malformed` outcomes).
 */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE hookgate_receipts ADD COLUMN detail TEXT`,
  `ALTER TABLE hookgate_receipts ADD COLUMN object_id TEXT`
]
