import { Console, Effect } from "effect"

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g

/** Whether output may carry colour: a terminal, and no `NO_COLOR` (https://no-color.org). */
export const colourAllowed = (env: NodeJS.ProcessEnv = process.env, isTTY = process.stdout.isTTY === true) =>
  isTTY && (env.NO_COLOR === undefined || env.NO_COLOR === "")

/** `args` with every colour code removed from its strings. */
export const strip = (args: ReadonlyArray<unknown>) => args.map((a) => (typeof a === "string" ? a.replace(ANSI, "") : a))

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
