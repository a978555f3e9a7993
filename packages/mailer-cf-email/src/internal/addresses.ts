const ADDRESS = /^[^\s@<>]+@[^\s@<>]+$/
/** `Name <address>`, `"Name" <address>` or `<address>`. */
const NAMED = /^(?:(.*?)\s*)?<([^<>\r\n]*)>$/
const QUOTES = /^(["'])(.*)\1$/s

export interface ParsedMailbox {
  readonly address: string
  readonly name: string
}

/** `a@b.c`, `Name <a@b.c>` or `"Name" <a@b.c>`, or undefined when it holds no address. */
export const parseMailbox = (text: string): ParsedMailbox | undefined => {
  const trimmed = text.trim()
  const named = NAMED.exec(trimmed)
  const address = named === null ? trimmed : named[2]!
  const name = named === null ? "" : (named[1] ?? "").replace(QUOTES, "$2")
  return ADDRESS.test(address) ? { address, name } : undefined
}

export const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1)
