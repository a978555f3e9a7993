import { Console, ConfigProvider, Context, Effect, Schema } from "effect"
import { parse as parseDotenv } from "dotenv"
import { readFile } from "node:fs/promises"
import { extname } from "node:path"
import { unknownSettings } from "./known-settings.js"

/**
 * Where every command reads its settings: the environment first, then an
 * optional settings file (`--config PATH` or `HOOKGATE_CONFIG=PATH`), then,
 * for `serve --dev` and the demo, the development settings. So `serve`,
 * `sweep` and `orders retry` see one configuration when they are given one file.
 */

/** A settings file: flat `NAME: value` pairs, as JSON or as a dotenv file. */
const SettingsFile = Schema.Record({
  key: Schema.String.pipe(Schema.pattern(/^[A-Z][A-Z0-9_]*$/, { message: () => "setting names are upper case, e.g. HOOKGATE_DB" })),
  value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean).pipe(
    Schema.transform(Schema.String, { decode: String, encode: (s) => s, strict: false })
  )
})

export class SettingsFileError extends Schema.TaggedError<SettingsFileError>()("SettingsFileError", {
  path: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `settings file ${this.path}: ${this.detail}`
  }
}

/** Reads and decodes a settings file: `.json` as JSON, anything else as dotenv (`NAME=value` lines). */
export const readSettingsFile = (path: string) =>
  Effect.gen(function*() {
    const text = yield* Effect.tryPromise({
      try: () => readFile(path, "utf8"),
      catch: (cause) => new SettingsFileError({ path, detail: `cannot be read (${(cause as NodeJS.ErrnoException).code ?? String(cause)})` })
    })
    const raw = yield* Effect.try({
      try: (): unknown => (extname(path).toLowerCase() === ".json" ? JSON.parse(text) : parseDotenv(text)),
      catch: (cause) => new SettingsFileError({ path, detail: `is not valid ${extname(path) === ".json" ? "JSON" : "dotenv"}: ${String(cause)}` })
    })
    return yield* Schema.decodeUnknown(SettingsFile)(raw).pipe(
      Effect.mapError((error) => new SettingsFileError({ path, detail: error.message.replace(/\s+/g, " ") }))
    )
  })

export interface SourceOptions {
  /** `--config PATH`; without it, `HOOKGATE_CONFIG` from the environment. */
  readonly file?: string | undefined
  /** Settings under everything else (the development settings of `serve --dev`). */
  readonly defaults?: Readonly<Record<string, string>>
  readonly env?: NodeJS.ProcessEnv
}

/** The config provider of every command: environment, then the settings file, then the defaults. */
export const settingsProvider = (options: SourceOptions = {}) =>
  Effect.gen(function*() {
    const env = options.env ?? process.env
    const fromEnv = options.env === undefined
      ? ConfigProvider.fromEnv()
      : ConfigProvider.fromMap(new Map(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)))
    const file = options.file ?? env.HOOKGATE_CONFIG
    const fromFile = file === undefined || file === ""
      ? undefined
      : ConfigProvider.fromMap(new Map(Object.entries(yield* readSettingsFile(file))))
    const withFile = fromFile === undefined ? fromEnv : ConfigProvider.orElse(fromEnv, () => fromFile)
    return options.defaults === undefined
      ? withFile
      : ConfigProvider.orElse(withFile, () => ConfigProvider.fromMap(new Map(Object.entries(options.defaults!))))
  })

/**
 * Warns on stderr, once per command, about every `HOOKGATE_*` name in the environment or the
 * settings file that hookgate does not read (a typo leaves its setting at the default).
 */
export const warnUnknownSettings = (options: SourceOptions = {}) =>
  Effect.gen(function*() {
    const env = options.env ?? process.env
    const file = options.file ?? env.HOOKGATE_CONFIG
    const fromFile = file === undefined || file === "" ? {} : yield* readSettingsFile(file)
    const warnings = [
      ...unknownSettings(Object.keys(env), "environment"),
      ...unknownSettings(Object.keys(fromFile), `settings file ${file}`, { plugins: true })
    ]
    yield* Effect.forEach(warnings, (warning) => Console.error(`hookgate: warning: ${warning}`), { discard: true })
  })

/** The settings file the command line named (`--config PATH`), for commands that build their own provider (`serve --dev`). */
export class SettingsSource extends Context.Tag("@hookgate/node/SettingsSource")<SettingsSource, { readonly file: string | undefined }>() {}

/** Takes `--config PATH` (or `--config=PATH`) out of the arguments, wherever it stands. */
export const takeConfigFlag = (argv: ReadonlyArray<string>): { readonly args: ReadonlyArray<string>; readonly file: string | undefined } => {
  const args: Array<string> = []
  let file: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--config" && i + 1 < argv.length) file = argv[++i]
    else if (arg.startsWith("--config=")) file = arg.slice("--config=".length)
    else args.push(arg)
  }
  return { args, file }
}
