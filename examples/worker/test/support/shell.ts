/**
 * Just enough of POSIX sh to read a README's ```sh blocks as a shell would: words
 * split on blanks, '…' literal, "…" with $VAR and \-escapes, backslash-newline
 * continuation, quotes spanning lines, # comments. Anything else a shell would do
 * differently (`;`, `&&`, pipes, redirections, `$(…)`, globs) is refused, so a README
 * command the tests cannot read exactly fails loudly instead of meaning something else.
 */

/** One command of a block, its words expanded, and the `# → …` comment that follows it (what it answers). */
export interface ShellCommand {
  readonly words: ReadonlyArray<string>
  /** The command as written (continuations joined), for messages. */
  readonly source: string
  readonly answer: string | undefined
}

const ANSWER = /^#\s*→\s*(.*)$/

/** The ```sh blocks of the section under `## <heading>` (up to the next `## `). */
export const shellBlocks = (markdown: string, heading: string): ReadonlyArray<string> => {
  const start = markdown.indexOf(`\n## ${heading}\n`)
  if (start < 0) throw new Error(`no section "## ${heading}"`)
  const next = markdown.indexOf("\n## ", start + 1)
  const section = markdown.slice(start, next < 0 ? undefined : next)
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!)
}

/**
 * The commands of the blocks, in order. `export NAME=value` is applied as it is read
 * (later commands expand it); an unset variable is an error, as under `set -u`.
 */
export const parseCommands = (blocks: ReadonlyArray<string>, env: Record<string, string> = {}): ReadonlyArray<ShellCommand> => {
  const commands: Array<{ words: Array<string>; source: string; answer: string | undefined }> = []
  for (const block of blocks) {
    let i = 0
    let words: Array<string> = []
    let word: string | undefined
    let startOfCommand = 0
    const expand = (quoted: boolean): string => {
      // At a `$`: a name or ${name}.
      const braced = block[i + 1] === "{"
      const match = (braced ? /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/ : /^\$([A-Za-z_][A-Za-z0-9_]*)/).exec(block.slice(i))
      if (match === null) throw new Error(`unsupported $ expansion ${quoted ? "in quotes " : ""}at: ${block.slice(i, i + 20)}`)
      const value = env[match[1]!]
      if (value === undefined) throw new Error(`$${match[1]} is not set (export it first)`)
      i += match[0].length
      return value
    }
    const endWord = () => {
      if (word !== undefined) words.push(word)
      word = undefined
    }
    const endCommand = () => {
      endWord()
      if (words.length > 0) {
        const source = block.slice(startOfCommand, i).replace(/\\\n\s*/g, "").trim()
        if (words[0] === "export") {
          for (const assignment of words.slice(1)) {
            const eq = assignment.indexOf("=")
            if (eq <= 0) throw new Error(`unsupported export: ${source}`)
            env[assignment.slice(0, eq)] = assignment.slice(eq + 1)
          }
        }
        commands.push({ words, source, answer: undefined })
      }
      words = []
    }
    while (i < block.length) {
      const c = block[i]!
      if (c === "\n") {
        endCommand()
        i++
        startOfCommand = i
      } else if (c === " " || c === "\t") {
        endWord()
        i++
      } else if (c === "#" && word === undefined) {
        // A comment: up to the end of the line; `# → …` right after a command is its answer.
        const end = block.indexOf("\n", i)
        const text = block.slice(i, end < 0 ? undefined : end)
        const answer = ANSWER.exec(text)
        if (answer !== null) {
          if (words.length > 0 || commands.length === 0) throw new Error(`an answer comment must follow a command: ${text}`)
          commands[commands.length - 1]!.answer = answer[1]!
        }
        i = end < 0 ? block.length : end
      } else if (c === "\\") {
        if (block[i + 1] === "\n") i += 2 // continuation
        else {
          word = (word ?? "") + block[i + 1]
          i += 2
        }
      } else if (c === "'") {
        const end = block.indexOf("'", i + 1)
        if (end < 0) throw new Error("unterminated '")
        word = (word ?? "") + block.slice(i + 1, end)
        i = end + 1
      } else if (c === "\"") {
        word = word ?? ""
        i++
        while (block[i] !== "\"") {
          if (i >= block.length) throw new Error("unterminated \"")
          const d = block[i]!
          if (d === "$") word += expand(true)
          else if (d === "`") throw new Error("command substitution is not supported")
          else if (d === "\\" && "$`\"\\\n".includes(block[i + 1] ?? "")) {
            if (block[i + 1] !== "\n") word += block[i + 1]
            i += 2
          } else {
            word += d
            i++
          }
        }
        i++
      } else if (c === "$") {
        word = (word ?? "") + expand(false)
      } else if (";&|<>`()*?[]{}~".includes(c)) {
        throw new Error(`unsupported shell syntax "${c}" at: ${block.slice(Math.max(0, i - 20), i + 20)}`)
      } else {
        word = (word ?? "") + c
        i++
      }
    }
    endCommand()
  }
  return commands
}

/** A `curl` command as the request it makes. */
export interface CurlRequest {
  readonly method: string
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: string | undefined
}

/**
 * Reads a `curl` command's words as curl does, for the options it knows: `-s`/`-S`,
 * `-X`/`--request`, `-H`/`--header`, `-d`/`--data`/`--data-raw`/`--data-binary`
 * (a literal body; POST unless `-X` says otherwise; form-encoded unless a header
 * says otherwise) and one URL. Any other option is refused.
 */
export const curlRequest = (words: ReadonlyArray<string>): CurlRequest => {
  if (words[0] !== "curl") throw new Error(`not a curl command: ${words.join(" ")}`)
  let method: string | undefined
  let body: string | undefined
  let url: string | undefined
  const headers: Record<string, string> = {}
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    const value = () => {
      const next = words[++i]
      if (next === undefined) throw new Error(`${word} needs a value`)
      return next
    }
    if (word === "-s" || word === "-S" || word === "-sS" || word === "--silent" || word === "--show-error") continue
    if (word === "-X" || word === "--request") method = value()
    else if (word === "-H" || word === "--header") {
      const header = value()
      const colon = header.indexOf(":")
      if (colon <= 0) throw new Error(`a header is "Name: value": ${header}`)
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim()
    } else if (["-d", "--data", "--data-raw", "--data-binary"].includes(word)) {
      const data = value()
      if (word !== "--data-raw" && data.startsWith("@")) throw new Error(`a body read from a file is not supported: ${data}`)
      body = body === undefined ? data : `${body}&${data}`
    } else if (word.startsWith("-")) throw new Error(`curl option ${word} is not supported by the walkthrough test`)
    else if (url === undefined) url = word
    else throw new Error(`a second URL: ${word}`)
  }
  if (url === undefined) throw new Error(`no URL: ${words.join(" ")}`)
  if (body !== undefined) headers["content-type"] ??= "application/x-www-form-urlencoded"
  return { method: method ?? (body === undefined ? "GET" : "POST"), url, headers, body }
}
