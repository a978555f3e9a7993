import { ValidationError } from "@effect/cli"
import { Cause, ConfigError, Console, Effect, Option } from "effect"

/**
 * How a command that fails ends: an expected refusal (a setting, a missing
 * order, a port in use, a gateway that does not answer) is one line on stderr
 * without a stack trace; a usage error was already printed by the parser and
 * is not printed again; only a defect (a bug) gets its full cause. Every
 * failure leaves a non-zero exit code.
 */

const name = (path: ReadonlyArray<string>) => path.join(".") || "settings"

/** One line per configuration problem, each naming its setting. */
export const configProblems = (error: ConfigError.ConfigError): ReadonlyArray<string> => {
  switch (error._op) {
    case "And":
    case "Or":
      return Array.from(new Set([...configProblems(error.left), ...configProblems(error.right)]))
    case "MissingData":
      // Effect's own wording ("Expected X to exist in the process context"), or a redacted one for a secret.
      return [`${name(error.path)}: ${/^Expected |<redacted>/.test(error.message) ? "is not set" : error.message}`]
    case "InvalidData":
      return [`${name(error.path)}: ${error.message.includes("<redacted>") ? "is not valid" : error.message}`]
    case "Unsupported":
      return [`${name(error.path)}: ${error.message}`]
    case "SourceUnavailable":
      return [`${name(error.path)}: ${error.message} (${Cause.pretty(error.cause).split("\n")[0]})`]
  }
}

const messageOf = (error: unknown): string =>
  typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string" &&
    (error as { message: string }).message !== ""
    ? (error as { message: string }).message
    : typeof error === "object" && error !== null && "_tag" in error
    ? String((error as { _tag: unknown })._tag)
    : String(error)

export const reportFailure = <A, E, R>(program: Effect.Effect<A, E, R>): Effect.Effect<void, never, R> =>
  program.pipe(
    Effect.asVoid,
    Effect.catchAllCause((cause) =>
      Effect.gen(function*() {
        process.exitCode = 1
        if (Cause.isInterruptedOnly(cause)) return
        const failure = Cause.failureOption(cause)
        if (Option.isNone(failure)) {
          yield* Console.error(`hookgate: unexpected failure (a bug; please report it):\n${Cause.pretty(cause)}`)
          return
        }
        const error = failure.value
        if (ValidationError.isValidationError(error)) return // the parser printed it, with the usage
        if (ConfigError.isConfigError(error)) {
          yield* Console.error(["hookgate: the settings have problems:", ...configProblems(error).map((p) => `  ${p}`)].join("\n"))
          return
        }
        yield* Console.error(`hookgate: ${messageOf(error)}`)
      })
    )
  )
