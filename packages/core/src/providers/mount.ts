import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { buildInStep } from "../kernel/build-in-step.js"
import { type Secrets, secretsConfig } from "./secrets.js"

/**
 * A provider mounted only when its secrets are set, as the Node gateway and a
 * Worker mount theirs: `secrets` is the config name holding them (read, when
 * the layer is built, as a comma-separated list of `Redacted` values) or an
 * `Option` already read. Unset, nothing is mounted; set but empty, the
 * `ConfigError` fails the layer.
 *
 *     Providers.layer(
 *       mountWhenSet("STRIPE_WEBHOOK_SECRET", (secrets) => Stripe.layer({ secrets })),
 *       mountWhenSet("CREEM_WEBHOOK_SECRET", (secrets) => Creem.layer({ secrets }))
 *     )
 */
export const mountWhenSet = <E, R>(
  secrets: string | Option.Option<Secrets>,
  mount: (secrets: Secrets) => Layer.Layer<never, E, R>
): Layer.Layer<never, E | ConfigError.ConfigError, R> => {
  if (typeof secrets !== "string") return Option.match(secrets, { onNone: () => Layer.empty, onSome: mount })
  const mountWhenRead = mountIfSet(secretsConfig(secrets), mount)
  // One layer step (not Layer.unwrapEffect's several): the mounted layer is built in the same memo map.
  // `Providers.layer` runs `mountWhenRead` itself, without even that step (see `mountingOf`).
  return Object.assign(Layer.scopedDiscard(mountWhenRead), { [Mounting]: mountWhenRead })
}

/** Reads the secrets, then builds the provider's layer in the current step when they are set. */
const mountIfSet = <E, R>(config: Config.Config<Secrets>, mount: (secrets: Secrets) => Layer.Layer<never, E, R>) =>
  Effect.flatMap(Config.option(config), (set) => Option.isNone(set) ? Effect.void : buildInStep(mount(set.value)))

const Mounting = Symbol.for("@hookgate/core/providers/mountWhenSet")

/**
 * What a `mountWhenSet` layer does, as an effect to run inside the layer step being
 * built: a Worker's first request builds `Providers.layer` with one mount per
 * provider it knows, most of them unset, and a layer step per mount (a memo map
 * entry, a scope, some 85 Effect operations) is what an unset one would cost.
 */
export const mountingOf = <E, R>(
  layer: Layer.Layer<never, E, R>
): Effect.Effect<void, E | ConfigError.ConfigError, R | Scope.Scope> | undefined =>
  (layer as Layer.Layer<never, E, R> & { readonly [Mounting]?: Effect.Effect<void, E | ConfigError.ConfigError, R | Scope.Scope> })[Mounting]
