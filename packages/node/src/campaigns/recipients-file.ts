import { type Error as PlatformErrors, FileSystem } from "@effect/platform"
import type { Recipient } from "@hookgate/core/campaigns"
import { Effect, Stream } from "effect"

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

/**
 * A recipient file as a stream, read a chunk at a time (flat memory):
 * `.csv` with a header naming an `email` column (the other columns become the
 * template's `{{vars}}`); otherwise one recipient per line, a bare email or a
 * JSON object `{ "email", "vars" }` (NDJSON). Blank lines are skipped.
 */
export const recipientsFromFile = (path: string) =>
  // Typed as recipients; `Campaigns.create` validates each one and names the first bad line.
  (Stream.unwrap(Effect.map(FileSystem.FileSystem, (fs) => {
    const lines = fs.stream(path).pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.filter((line) => line.trim() !== "")
    )
    if (!path.toLowerCase().endsWith(".csv")) {
      return Stream.map(lines, (line): unknown => {
        const trimmed = line.trim()
        if (!trimmed.startsWith("{")) return trimmed
        try {
          return JSON.parse(trimmed)
        } catch {
          return trimmed
        }
      })
    }
    return lines.pipe(
      Stream.mapAccum(undefined as ReadonlyArray<string> | undefined, (header, line) => {
        const cells = splitCsvLine(line)
        if (header === undefined) return [cells.map((h) => h.toLowerCase()), [] as Array<unknown>]
        const emailAt = header.indexOf("email")
        const vars = Object.fromEntries(header.flatMap((name, i) => (i === emailAt ? [] : [[name, cells[i] ?? ""]])))
        return [header, [{ email: cells[emailAt] ?? "", vars }]]
      }),
      Stream.flattenIterables
    )
  })) as Stream.Stream<Recipient | string, PlatformErrors.PlatformError, FileSystem.FileSystem>)
