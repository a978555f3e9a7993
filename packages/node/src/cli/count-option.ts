import { HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect } from "effect"

/**
 * `--<name> N`: a whole number at least `min`, refused in plain words otherwise
 * (`--limit 0` would list nothing, `--limit -5` and `--limit abc` mean nothing).
 */
export const countOption = (name: string, options: { readonly min: number; readonly fallback: number; readonly description: string }) =>
  Options.text(name).pipe(
    Options.withDefault(String(options.fallback)),
    Options.withDescription(options.description),
    Options.mapEffect((text) => {
      const value = Number(text.trim())
      return /^-?\d+$/.test(text.trim()) && value >= options.min
        ? Effect.succeed(value)
        : Effect.fail(ValidationError.invalidValue(HelpDoc.p(
          `--${name} must be a whole number, at least ${options.min} (got ${JSON.stringify(text)}), e.g. --${name} ${options.fallback}`
        )))
    })
  )
