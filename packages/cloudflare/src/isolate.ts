import { sha256Hex } from "@hookgate/core"
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
/** Fingerprints being computed: concurrent first invocations of one `env` wait for one digest. */
const pending = new WeakMap<object, Promise<string>>()

/** The tenant of `env`: at once when known, else after one digest however many invocations ask. */
const tenantOf = (env: Env): string | Promise<string> => {
  const known = fingerprints.get(env)
  if (known !== undefined) return known
  let computing = pending.get(env)
  if (computing === undefined) {
    computing = Effect.runPromise(envFingerprint(env)).finally(() => pending.delete(env))
    pending.set(env, computing)
  }
  return computing
}

/**
 * What makes two `env`s the same tenant: the same vars and secrets (by value) and the
 * same bindings (by identity). Hashed, so no secret is kept as a map key. Workers hand
 * an isolate the same `env` object on every invocation, so this is computed once per
 * object; a platform that builds an `env` per shop gets one fingerprint per shop.
 * SHA-256 by the kernel's `Digest` (Web Crypto's in a Worker).
 */
export const envFingerprint = (env: Env): Effect.Effect<string> =>
  Effect.suspend(() => {
    const known = fingerprints.get(env)
    return known !== undefined ? Effect.succeed(known) : Effect.tap(sha256Hex(describeEnv(env)), (fingerprint) => {
      fingerprints.set(env, fingerprint)
    })
  })

/** The text whose digest is the fingerprint: every name with its value, or its binding's identity. */
const describeEnv = (env: Env): string =>
  Object.keys(env).sort().map((name) => {
    const value = env[name]
    const described = (typeof value === "object" && value !== null) || typeof value === "function"
      ? `binding#${bindingId(value)}`
      : `${typeof value}:${String(value)}`
    return `${name}\u0000${described}`
  }).join("\u0001")

/** A tenant's runtime, held by one invocation until it calls `release` (once; later calls do nothing). */
export interface HeldRuntime<R> {
  readonly runtime: Runtime.Runtime<R>
  readonly release: () => void
}

interface Entry<R> {
  readonly runtime: Promise<Runtime.Runtime<R>>
  readonly dispose: () => Promise<void>
  /** Invocations holding it (from `acquire` to `release`), counted from before the build finishes. */
  holders: number
  /** Out of the table: disposed once the last holder releases it. */
  evicted: boolean
}

/**
 * The runtimes of one isolate, one per tenant: each is built from its `env` on first
 * use (Workers only hand `env` to the handlers), then shared by every request and cron
 * run with that `env`. A different `env` (another shop's secrets, D1 database or
 * sender, passed by a platform that routes several shops through one script) never
 * reuses another's runtime. A failed build is logged and not kept, so the next
 * invocation tries again.
 *
 * `acquire` holds the runtime until `release`: beyond `maxRuntimes` tenants the least
 * recently used leaves the table (its next invocation builds afresh), but it is
 * disposed only once no invocation holds it, so a request, cron run or deferred work
 * still running on it finishes on an intact runtime.
 */
export const isolateRuntime = <R, E>(
  makeLayer: (env: Env) => Layer.Layer<R, E>,
  logger: Layer.Layer<never> = Layer.empty,
  options: { readonly maxRuntimes?: number } = {}
) => {
  const maxRuntimes = options.maxRuntimes ?? MAX_RUNTIMES
  const built = new Map<string, Entry<R>>()
  /** The tenant last in `built`'s order. */
  let mostRecent: string | undefined
  const disposeWhenFree = (entry: Entry<R>) => {
    if (entry.evicted && entry.holders === 0) void entry.dispose()
  }
  const evict = (tenant: string, entry: Entry<R>) => {
    if (built.get(tenant) === entry) built.delete(tenant)
    entry.evicted = true
    disposeWhenFree(entry)
  }
  // Synchronous from the fingerprint on: two invocations of one new tenant build one runtime.
  const entryFor = (tenant: string, env: Env): Entry<R> => {
    const existing = built.get(tenant)
    if (existing !== undefined) {
      // Most recently used last, so the eviction below takes the least recently used
      // (nothing to move when it is already last: the usual isolate serves one shop).
      if (tenant !== mostRecent) {
        built.delete(tenant)
        built.set(tenant, existing)
        mostRecent = tenant
      }
      return existing
    }
    const managed = ManagedRuntime.make(makeLayer(env))
    const runtime = Effect.runPromise(
      managed.runtimeEffect.pipe(
        Effect.tapErrorCause((cause) =>
          Effect.logError("hookgate: the Worker's layer could not be built", cause).pipe(Effect.provide(logger))
        )
      )
    ).catch((error: unknown) => {
      // Not kept: the next invocation builds again. Its holders release a runtime they never got.
      evict(tenant, entry)
      throw error
    })
    const entry: Entry<R> = { runtime, dispose: () => managed.dispose(), holders: 0, evicted: false }
    built.set(tenant, entry)
    mostRecent = tenant
    if (built.size > maxRuntimes) {
      const [oldest, last] = built.entries().next().value!
      evict(oldest, last)
    }
    return entry
  }
  return {
    /** The tenant's runtime, held until `release`; rejects when its layer cannot be built. */
    acquire: async (env: Env): Promise<HeldRuntime<R>> => {
      // Known after an `env`'s first invocation: no digest, no fiber on the way to a request.
      const known = tenantOf(env)
      const tenant = typeof known === "string" ? known : await known
      const entry = entryFor(tenant, env)
      entry.holders++
      let released = false
      const release = () => {
        if (released) return
        released = true
        entry.holders--
        disposeWhenFree(entry)
      }
      try {
        return { runtime: await entry.runtime, release }
      } catch (error) {
        release()
        throw error
      }
    }
  }
}
