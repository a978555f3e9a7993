/**
 * Rows that travel as ONE JSON parameter (expanded by `json_each` / `jsonb_to_recordset`)
 * are cut into arrays bounded by bytes as well as by count. D1 refuses a string, BLOB or
 * row over 2,000,000 bytes (https://developers.cloudflare.com/d1/platform/limits/); an
 * array is kept to half of that, so one recipient of up to `CampaignOptions.maxRecipientBytes`
 * (100,000 bytes by default, checked at create time) always fits with room for escaping.
 */
export const maxJsonParameterBytes = 1_000_000

const encoder = new TextEncoder()

/** UTF-8 length of a string (what D1 measures). */
export const utf8Bytes = (text: string): number => encoder.encode(text).byteLength

/**
 * The rows as JSON arrays of at most `maxRows` rows and `maxBytes` UTF-8 bytes each, in
 * order. A row larger than `maxBytes` on its own still travels, alone (callers refuse
 * such rows before they get here). One array, the usual case, costs one statement.
 */
export const jsonArrays = (
  rows: ReadonlyArray<unknown>,
  { maxBytes = maxJsonParameterBytes, maxRows = Number.POSITIVE_INFINITY }: { maxBytes?: number; maxRows?: number } = {}
): Array<string> => {
  const arrays: Array<string> = []
  let current: Array<string> = []
  let bytes = 2 // "[" and "]"
  for (const row of rows) {
    const encoded = JSON.stringify(row)
    const size = utf8Bytes(encoded) + 1 // and its comma
    if (current.length > 0 && (current.length >= maxRows || bytes + size > maxBytes)) {
      arrays.push(`[${current.join(",")}]`)
      current = []
      bytes = 2
    }
    current.push(encoded)
    bytes += size
  }
  if (current.length > 0) arrays.push(`[${current.join(",")}]`)
  return arrays
}
