import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type * as Runtime from "effect/Runtime"

type Env = Readonly<Record<string, unknown>>

/** Runtimes kept at once; a platform routing more tenants than this through one isolate rebuilds the oldest. */
const MAX_RUNTIMES = 32

const bindingIds = new WeakMap<object, number>()
let nextBindingId = 0
const bindingId = (binding: object) => {
  let id = bindingIds.get(binding)
  if (id === undefined) {
    id = ++nextBindingId
    bindingIds.set(binding, id)
  }
  return id
}

const fingerprints = new WeakMap<object, string>()

/**
 * What makes two `env`s the same tenant: the same vars and secrets (by value) and the
 * same bindings (by identity). Hashed, so no secret is kept as a map key. Workers hand
 * an isolate the same `env` object on every invocation, so this is computed once per
 * object; a platform that builds an `env` per shop gets one fingerprint per shop.
 */
export const envFingerprint = (env: Env): string => {
  const known = fingerprints.get(env)
  if (known !== undefined) return known
  const parts = Object.keys(env).sort().map((name) => {
    const value = env[name]
    const described = (typeof value === "object" && value !== null) || typeof value === "function"
      ? `binding#${bindingId(value)}`
      : `${typeof value}:${String(value)}`
    return `${name}\u0000${described}`
  })
  const fingerprint = bytesToHex(sha256(utf8ToBytes(parts.join("\u0001"))))
  fingerprints.set(env, fingerprint)
  return fingerprint
}

/**
 * The runtimes of one isolate, one per tenant: each is built from its `env` on first
 * use (Workers only hand `env` to the handlers), then shared by every request and cron
 * run with that `env`. A different `env` (another shop's secrets, D1 database or
 * sender, passed by a platform that routes several shops through one script) never
 * reuses another's runtime. A failed build is logged and not kept, so the next
 * invocation tries again.
 */
export const isolateRuntime = <R, E>(
  makeLayer: (env: Env) => Layer.Layer<R, E>,
  logger: Layer.Layer<never> = Layer.empty
) => {
  const built = new Map<string, { readonly runtime: Promise<Runtime.Runtime<R>>; readonly dispose: () => Promise<void> }>()
  return (env: Env): Promise<Runtime.Runtime<R>> => {
    const tenant = envFingerprint(env)
    const existing = built.get(tenant)
    if (existing !== undefined) {
      // Most recently used last, so the eviction below takes the least recently used.
      built.delete(tenant)
      built.set(tenant, existing)
      return existing.runtime
    }
    const managed = ManagedRuntime.make(makeLayer(env))
    const runtime = Effect.runPromise(
      managed.runtimeEffect.pipe(
        Effect.tapErrorCause((cause) =>
          Effect.logError("hookgate: the Worker's layer could not be built", cause).pipe(Effect.provide(logger))
        )
      )
    ).catch((error: unknown) => {
      built.delete(tenant)
      void managed.dispose()
      throw error
    })
    built.set(tenant, { runtime, dispose: () => managed.dispose() })
    if (built.size > MAX_RUNTIMES) {
      const [oldest, entry] = built.entries().next().value!
      built.delete(oldest)
      void entry.dispose()
    }
    return runtime
  }
}
