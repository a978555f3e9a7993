import { Log } from "miniflare"
import { readFile } from "node:fs/promises"
import { stripVTControlCharacters } from "node:util"

/** An email the real `send_email` binding accepted (Email Sending form), as Miniflare recorded it. */
export interface BindingEmail {
  readonly from: string
  readonly to: string
  readonly subject: string
  readonly text: string | undefined
}

const SENT = /send_email binding called with MessageBuilder:\n([\s\S]*)/
const field = (block: string, name: string) => new RegExp(`^${name}: (.*)$`, "m").exec(block)?.[1]

/**
 * Miniflare's log, kept. The `send_email` binding reports each email it
 * accepts there (From, To, Subject, and the path of a file with the text),
 * which is how the tests read what the binding sent.
 */
export class CapturingLog extends Log {
  lines: Array<string> = []
  protected override log(message: string): void {
    this.lines.push(stripVTControlCharacters(message))
  }

  clear() {
    this.lines = []
  }

  /** The emails the binding accepted so far, in order. */
  async emails(): Promise<ReadonlyArray<BindingEmail>> {
    return Promise.all(
      this.lines.flatMap((line) => {
        const block = SENT.exec(line)?.[1]
        if (block === undefined) return []
        const textPath = field(block, "Text")
        return [(async () => ({
          from: field(block, "From") ?? "",
          to: field(block, "To") ?? "",
          subject: field(block, "Subject") ?? "",
          text: textPath === undefined ? undefined : await readFile(textPath, "utf8")
        }))()]
      })
    )
  }
}
