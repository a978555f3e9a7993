import { Console, Effect } from "effect"

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g

/** Whether output may carry colour: a terminal, and no `NO_COLOR` (https://no-color.org). */
export const colourAllowed = (env: NodeJS.ProcessEnv = process.env, isTTY = process.stdout.isTTY === true) =>
  isTTY && (env.NO_COLOR === undefined || env.NO_COLOR === "")

/** `args` with every colour code removed from its strings: the general path. */
export const stripAll = (args: ReadonlyArray<unknown>) => args.map((a) => (typeof a === "string" ? a.replace(ANSI, "") : a))

/**
 * `stripAll`, with a fast path for what `serve` logs on every webhook: one string with no
 * escape character (a JSON line cannot hold one: JSON.stringify escapes it) is given back
 * as it is, with no array or regular expression run.
 */
export const strip = (args: ReadonlyArray<unknown>) =>
  args.length === 1 && typeof args[0] === "string" && !args[0].includes("\u001b") ? args : stripAll(args)

/** The default console with colour codes removed (the CLI parser's help and errors are coloured). */
export const plainConsole = Effect.map(Console.consoleWith(Effect.succeed), (console): Console.Console => ({
  ...console,
  log: (...args) => console.log(...strip(args)),
  error: (...args) => console.error(...strip(args)),
  unsafe: {
    ...console.unsafe,
    log: (...args) => console.unsafe.log(...strip(args)),
    error: (...args) => console.unsafe.error(...strip(args))
  }
}))

/** Runs `effect` with colour removed unless `colourAllowed()`. */
export const withColourPolicy = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  colourAllowed() ? effect : Effect.flatMap(plainConsole, (console) => Effect.withConsole(effect, console))
