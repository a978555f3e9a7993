import { Mailbox } from "mimetext/browser"

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+$/

export interface ParsedMailbox {
  readonly address: string
  readonly name: string
}

/** `a@b.c` or `Name <a@b.c>` (parsed by mimetext), or undefined when it holds no address. */
export const parseMailbox = (text: string): ParsedMailbox | undefined => {
  try {
    const mailbox = new Mailbox(text.trim())
    return ADDRESS.test(mailbox.addr) ? { address: mailbox.addr, name: mailbox.name } : undefined
  } catch {
    return undefined
  }
}

export const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1)
