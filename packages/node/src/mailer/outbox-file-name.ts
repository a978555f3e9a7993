import { createHash } from "node:crypto"

/**
 * An outbox file name from an idempotency key, in a fixed alphabet
 * (`A-Z a-z 0-9 - . _ +`) and never two keys to one name: letters, digits,
 * `-` and `.` (except a leading one) stay, every other character becomes `_`
 * and the hex of its UTF-8 bytes (so `_` itself is escaped and the mapping can
 * be read back). A name longer than `MAX_NAME` keeps its readable start and
 * ends in `+` and a SHA-256 of the whole key (only long names contain `+`).
 */
export const MAX_NAME = 120
const HASHED_PREFIX = 80

const KEEP = /[A-Za-z0-9-]/

const escapeChar = (char: string) =>
  `_${Array.from(Buffer.from(char, "utf8"), (b) => b.toString(16).padStart(2, "0")).join("_")}`

export const outboxFileName = (key: string): string => {
  let name = ""
  for (const char of key) {
    name += KEEP.test(char) || (char === "." && name !== "") ? char : escapeChar(char)
  }
  if (name.length <= MAX_NAME) return name
  const digest = createHash("sha256").update(key, "utf8").digest("hex")
  return `${name.slice(0, HASHED_PREFIX).replace(/_[0-9a-f]?$/, "")}+${digest}`
}
