/**
 * Is `email` an RFC 5322 dot-atom addr-spec, with RFC 6531's non-ASCII letters and
 * digits, and domain labels of 1-63 characters? An ASCII address (nearly every one)
 * is checked by a pattern without Unicode properties: a `\p{L}` pattern costs V8
 * a few million instructions to build (ICU's tables), in a Worker's cold start.
 * The Unicode pattern is built only for an address with a non-ASCII character;
 * on ASCII the two agree (test/email-address.test.ts).
 */
export const isAddrSpec = (email: string): boolean =>
  ASCII_ONLY.test(email) ? ASCII_ADDR_SPEC.test(email) : unicodeAddrSpec().test(email)

const ASCII_ONLY = /^[\x00-\x7f]*$/

const addrSpec = (letterOrDigit: string, flags: string) => {
  const atext = `[${letterOrDigit}!#$%&'*+/=?^_\`{|}~-]`
  const label = `[${letterOrDigit}](?:[${letterOrDigit}-]{0,61}[${letterOrDigit}])?`
  return new RegExp(`^${atext}+(?:\\.${atext}+)*@${label}(?:\\.${label})*$`, flags)
}

/** On ASCII, `\p{L}` is A-Z and a-z, `\p{N}` is 0-9. */
export const ASCII_ADDR_SPEC = addrSpec("A-Za-z0-9", "")

let unicode: RegExp | undefined
/** The full pattern, built on first use. */
export const unicodeAddrSpec = (): RegExp => (unicode ??= addrSpec("\\p{L}\\p{N}", "u"))
