import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
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
  // One layer step (not Layer.unwrapEffect's several): the mounted layer is built in the same memo map.
  return Layer.scopedDiscard(Effect.flatMap(Config.option(secretsConfig(secrets)), (set) =>
    Option.isNone(set) ? Effect.void : buildInStep(mount(set.value))))
}
