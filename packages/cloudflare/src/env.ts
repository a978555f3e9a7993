import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { MissingBinding } from "./errors.js"

/** The Worker's `env`: bindings (D1, send_email, …), vars and secrets. */
export class WorkerEnv extends Context.Tag("@hookgate/cloudflare/WorkerEnv")<WorkerEnv, Readonly<Record<string, unknown>>>() {}

/**
 * A binding from `env`, checked to be an object with the given methods, e.g.
 * `binding<D1Database>("DB", "prepare", "batch")`. The check is structural: the
 * type argument is the caller's word for what the methods belong to.
 */
export const binding = <A extends object>(name: string, ...methods: ReadonlyArray<string>) =>
  Effect.flatMap(WorkerEnv, (env): Effect.Effect<A, MissingBinding> => {
    const value = env[name]
    const isObject = (typeof value === "object" || typeof value === "function") && value !== null
    const hasMethods = isObject && methods.every((method) => typeof (value as Record<string, unknown>)[method] === "function")
    return hasMethods
      ? Effect.succeed(value as A)
      : Effect.fail(new MissingBinding({ name, expected: methods.length === 0 ? "a binding" : `with ${methods.join(", ")}` }))
  })

/**
 * A `ConfigProvider` over the string entries of `env` (vars and secrets), so
 * `Config.redacted("STRIPE_WEBHOOK_SECRET")` reads a secret as `Redacted` and
 * `Config.string("MAILER")` a var. Bindings (objects) are left out.
 */
export const configProviderFromEnv = (env: Readonly<Record<string, unknown>>): ConfigProvider.ConfigProvider =>
  ConfigProvider.fromMap(
    new Map(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === "string"))
  )
