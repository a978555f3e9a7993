import { describe, expect, it } from "@effect/vitest"
import { RetryPolicy } from "@hookgate/core"
import { Resend } from "@hookgate/mailer-resend"
import { PgStore } from "@hookgate/store-pg"
import { type Config, ConfigError, ConfigProvider, ConfigProviderPathPatch, Duration, Effect, HashSet } from "effect"
import { effectiveSettings } from "../src/cli/config-check.js"
import { GatewayConfig } from "../src/config/gateway-config.js"
import { KNOWN_SETTINGS, PLUGIN_SETTINGS } from "../src/config/known-settings.js"

/**
 * The gateway reads Postgres's and Resend's settings with the packages' own Config, so
 * `config check` shows what the package would read: every name the package reads, each with
 * the package's value (its default when unset). A setting declared again in the gateway,
 * with another name or another default, fails here.
 */

/** A config provider over `env` that records every name a Config asks for. */
const recording = (env: Record<string, string>) => {
  const names = new Set<string>()
  const provider = ConfigProvider.fromFlat(ConfigProvider.makeFlat({
    load: (path, primitive) => {
      const name = path.join("_")
      names.add(name)
      const value = env[name]
      return value === undefined
        ? Effect.fail(ConfigError.MissingData([...path], `Expected ${name} to exist`))
        : Effect.map(primitive.parse(value), (a) => [a])
    },
    enumerateChildren: () => Effect.succeed(HashSet.empty()),
    patch: ConfigProviderPathPatch.empty
  }))
  return { names, provider }
}

const show = (value: Duration.DurationInput) => Duration.format(Duration.decode(value))

/** What the package reads from `env`, as `config check` must show it, by setting name. */
const packages: ReadonlyArray<{
  readonly name: string
  readonly env: Record<string, string>
  readonly changed: Record<string, string>
  readonly read: (env: Record<string, string>) => Effect.Effect<{ names: ReadonlySet<string>; shown: Record<string, string> }, ConfigError.ConfigError>
}> = [
  {
    name: "store-pg (PgStore.PgStoreConfig)",
    env: { HOOKGATE_DATABASE_URL: "postgres://hookgate:pw-secret@db.internal:5432/hookgate" },
    changed: { HOOKGATE_DB_POOL_SIZE: "3", HOOKGATE_DB_STATEMENT_TIMEOUT: "2m 30s", HOOKGATE_DB_CONNECT_TIMEOUT: "PT1M" },
    read: (env) => readWith(PgStore.PgStoreConfig, env, (o) => ({
      HOOKGATE_DATABASE_URL: "<redacted>",
      HOOKGATE_DB_POOL_SIZE: String(o.maxConnections),
      HOOKGATE_DB_STATEMENT_TIMEOUT: show(o.statementTimeout!),
      HOOKGATE_DB_CONNECT_TIMEOUT: show(o.connectTimeout!)
    }))
  },
  {
    name: "mailer-resend (Resend.ResendConfig)",
    env: { HOOKGATE_MAILER: "resend", RESEND_API_KEY: "re_secret_value" },
    changed: { RESEND_BASE_URL: "http://127.0.0.1:9/resend", RESEND_TIMEOUT: "30s" },
    read: (env) => readWith(Resend.ResendConfig, env, (o) => ({
      RESEND_API_KEY: "<redacted>",
      RESEND_BASE_URL: o.baseUrl!,
      RESEND_TIMEOUT: show(o.timeout!)
    }))
  }
]

const postgres = packages[0]!

const readWith = <A>(config: Config.Config<A>, env: Record<string, string>, shown: (a: A) => Record<string, string>) => {
  const { names, provider } = recording(env)
  return Effect.map(Effect.withConfigProvider(config, provider), (a) => ({ names, shown: shown(a) }))
}

/** `config check`'s table for `env`, by setting name. */
const configCheck = (env: Record<string, string>) =>
  Effect.gen(function*() {
    const config = yield* GatewayConfig
    return Object.fromEntries(effectiveSettings(config, yield* RetryPolicy.make(config.retry)))
  }).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("the gateway shows the packages' own settings", () => {
  for (const pkg of packages) {
    for (const [when, env] of [["defaults", pkg.env], ["every setting changed", { ...pkg.env, ...pkg.changed }]] as const) {
      it.effect(`${pkg.name}, ${when}: every setting the package reads, with the package's value`, () =>
        Effect.gen(function*() {
          const { names, shown } = yield* pkg.read(env)
          // Every name the package read is one the table accounts for (and the gateway knows).
          expect([...names].sort()).toEqual(Object.keys(shown).sort())
          for (const name of names) expect([...KNOWN_SETTINGS, ...PLUGIN_SETTINGS]).toContain(name)
          const table = yield* configCheck(env)
          for (const [name, value] of Object.entries(shown)) expect({ name, value: table[name] }).toEqual({ name, value })
          // The changed values are not the defaults: the comparison above could have failed.
          if (when !== "defaults") {
            const defaults = (yield* pkg.read(pkg.env)).shown
            for (const name of Object.keys(pkg.changed)) expect(table[name]).not.toBe(defaults[name])
          }
        }))
    }
  }

  it.effect("what the package refuses, the gateway refuses, naming the setting and never its value", () =>
    Effect.gen(function*() {
      const env = {
        HOOKGATE_DATABASE_URL: "mysql://hookgate:pw-secret@db/x",
        HOOKGATE_DB_POOL_SIZE: "0",
        HOOKGATE_DB_STATEMENT_TIMEOUT: "0 seconds"
      }
      const own = yield* Effect.flip(postgres.read(env))
      const gateway = yield* Effect.flip(configCheck(env))
      const paths = (error: ConfigError.ConfigError) =>
        ConfigError.reduceWithContext(error, undefined, {
          andCase: (_, l: Array<string>, r: Array<string>) => [...l, ...r],
          orCase: (_, l: Array<string>, r: Array<string>) => [...l, ...r],
          invalidDataCase: (_, path) => [path.join("_")],
          missingDataCase: (_, path) => [path.join("_")],
          sourceUnavailableCase: (_, path) => [path.join("_")],
          unsupportedCase: (_, path) => [path.join("_")]
        }).sort()
      expect(paths(gateway)).toEqual(paths(own))
      expect(String(gateway)).not.toContain("pw-secret")
    }))
})

describe("the lease outlasts Resend's own timeout", () => {
  it.effect("the check uses the timeout Resend reads, its default too, even while RESEND_API_KEY is missing", () =>
    Effect.gen(function*() {
      const problems = (env: Record<string, string>) =>
        Effect.flip(configCheck({ HOOKGATE_MAILER: "resend", ...env })).pipe(Effect.map(String))
      expect(yield* problems({ HOOKGATE_LEASE: `${Duration.toSeconds(Resend.DEFAULT_TIMEOUT)} seconds`, RESEND_API_KEY: "k" }))
        .toContain(`must exceed RESEND_TIMEOUT (${show(Resend.DEFAULT_TIMEOUT)})`)
      const missingKey = yield* problems({ HOOKGATE_LEASE: "20 seconds", RESEND_TIMEOUT: "30 seconds" })
      expect(missingKey).toContain("RESEND_API_KEY")
      expect(missingKey).toContain("must exceed RESEND_TIMEOUT (30s)")
    }))
})
