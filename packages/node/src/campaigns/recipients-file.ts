import { type Error as PlatformErrors, FileSystem } from "@effect/platform"
import { RecipientOnLine } from "@hookgate/core/campaigns"
import { Data, Effect, Stream } from "effect"

/** Splits one CSV line, honouring double quotes ("a, b" and "" inside quotes). */
export const splitCsvLine = (line: string): Array<string> => {
  const cells: Array<string> = []
  let cell = ""
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (quoted) {
      if (c === "\"" && line[i + 1] === "\"") {
        cell += "\""
        i++
      } else if (c === "\"") quoted = false
      else cell += c
    } else if (c === "\"") quoted = true
    else if (c === ",") {
      cells.push(cell)
      cell = ""
    } else cell += c
  }
  cells.push(cell)
  return cells.map((value) => value.trim())
}

/** A JSON object line, or a bare email. */
const lineValue = (line: string): unknown => {
  const trimmed = line.trim()
  if (!trimmed.startsWith("{")) return trimmed
  try {
    return JSON.parse(trimmed)
  } catch {
    return trimmed
  }
}

/**
 * A recipient file as a stream, read a chunk at a time (flat memory):
 * `.csv` with a header naming an `email` column (the other columns become the
 * template's `{{vars}}`); otherwise one recipient per line, a bare email or a
 * JSON object `{ "email", "vars" }` (NDJSON). Blank lines are skipped. Each recipient
 * carries its line (1-based, counting every line of the file: a CSV's header is line 1),
 * so `Campaigns.create` names it when it refuses one ("line 3: …").
 */
export const recipientsFromFile = (path: string) =>
  Stream.unwrap(Effect.map(FileSystem.FileSystem, (fs) => {
    const lines = fs.stream(path).pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.zipWithIndex,
      Stream.filter(([line]) => line.trim() !== "")
    )
    if (!path.toLowerCase().endsWith(".csv")) {
      return Stream.map(lines, ([line, i]) => new RecipientOnLine({ line: i + 1, recipient: lineValue(line) }))
    }
    return lines.pipe(
      Stream.mapAccumEffect(undefined as ReadonlyArray<string> | undefined, (header, [line, i]): Effect.Effect<
        readonly [ReadonlyArray<string>, ReadonlyArray<RecipientOnLine>],
        RecipientFileError
      > => {
        const cells = splitCsvLine(line)
        if (header === undefined) {
          const names = cells.map((h) => h.toLowerCase())
          return names.includes("email")
            ? Effect.succeed([names, []] as const)
            : Effect.fail(new RecipientFileError({ path, line: i + 1, detail: "the header names no email column" }))
        }
        const emailAt = header.indexOf("email")
        const vars = Object.fromEntries(header.flatMap((name, at) => (at === emailAt ? [] : [[name, cells[at] ?? ""]])))
        return Effect.succeed([header, [new RecipientOnLine({ line: i + 1, recipient: { email: cells[emailAt] ?? "", vars } })]] as const)
      }),
      Stream.flattenIterables
    )
  })) as Stream.Stream<RecipientOnLine, PlatformErrors.PlatformError | RecipientFileError, FileSystem.FileSystem>

/** A recipient file that cannot be read as one: a CSV whose header has no `email` column. */
export class RecipientFileError extends Data.TaggedError("RecipientFileError")<{
  readonly path: string
  readonly line: number
  readonly detail: string
}> {
  override get message() {
    return `${this.path}: line ${this.line}: ${this.detail}`
  }
}
