import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"

/** A setting's name, and the name it had before this release (still read, with a warning, until the next). */
export interface RenamedSetting {
  readonly name: string
  readonly former: string
}

/**
 * One name per concept, the same in the gateway, the SDK and the Worker: the owner's address
 * for alerts is `HOOKGATE_OWNER_EMAIL`, the sender of hookgate's emails `HOOKGATE_FROM`.
 */
export const RENAMED_SETTINGS = {
  /** The SDK's and the Worker's name for the owner's address (`EmailAlerter.layerConfig()`). */
  alertTo: { name: "HOOKGATE_OWNER_EMAIL", former: "HOOKGATE_ALERT_EMAIL_TO" },
  /** The SDK's and the Worker's name for the alerts' sender (`EmailAlerter.layerConfig()`). */
  alertFrom: { name: "HOOKGATE_FROM", former: "HOOKGATE_ALERT_EMAIL_FROM" },
  /** The example Worker's name for the buyer's email's sender. */
  emailFrom: { name: "HOOKGATE_FROM", former: "EMAIL_FROM" }
} as const satisfies Record<string, RenamedSetting>

/**
 * `read(name)`; when only the former name is set, `read(former)`. Missing under both, the error
 * names the new name only.
 */
export const renamedConfig = <A>(read: (name: string) => Config.Config<A>, setting: RenamedSetting): Config.Config<A> =>
  Config.all([Config.option(read(setting.name)), Config.option(read(setting.former))]).pipe(
    Config.mapOrFail(([current, former]) =>
      Option.isSome(current)
        ? Either.right(current.value)
        : Option.isSome(former)
        ? Either.right(former.value)
        : Either.left(ConfigError.MissingData([setting.name], `Expected ${setting.name} to exist in the process context`))
    )
  )

/**
 * One warning per renamed setting still set under its former name: read instead of the new
 * one (rename it), or ignored because the new one is set too (remove it).
 */
export const warnRenamed = (settings: ReadonlyArray<RenamedSetting>): Effect.Effect<void> =>
  Effect.forEach(settings, ({ former, name }) =>
    Effect.gen(function*() {
      const set = (key: string) => Effect.map(Effect.option(Config.string(key)), Option.isSome)
      if (!(yield* set(former))) return
      yield* Effect.logWarning(
        (yield* set(name))
          ? `${former} is ignored: ${name} is set (${former} is its former name: remove it)`
          : `${former} is deprecated: rename it ${name} (the former name is read until the next release)`
      )
    }), { discard: true })
