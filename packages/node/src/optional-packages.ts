import { Data, Effect } from "effect"

/**
 * Packages @hookgate/node declares as optional peers (`peerDependenciesMeta.optional`): they
 * are installed only by who turns their feature on, and loaded with a dynamic import only
 * then. OpenTelemetry is most of the weight (about 40 MB with the SDK packages that
 * @effect/opentelemetry requires as peers), and most gateways never export a trace or serve
 * Prometheus. The ranges are package.json's `peerDependencies` (a test checks they agree).
 */
export const OPTIONAL_PACKAGES = {
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`: traces over OTLP. */
  tracing: { "@effect/opentelemetry": "^0.64.1" },
  /** `HOOKGATE_METRICS=prometheus`: `GET /metrics`. */
  metrics: { "@effect/opentelemetry": "^0.64.1", "@opentelemetry/exporter-prometheus": "^0.223.0" }
} as const satisfies Record<string, Record<string, string>>

/** A setting turned a feature on whose optional packages are not installed: the message says what to install. */
export class OptionalPackagesMissing extends Data.TaggedError("OptionalPackagesMissing")<{
  /** What was turned on, and by which setting: `traces (OTEL_EXPORTER_OTLP_ENDPOINT)`. */
  readonly feature: string
  /** `name@range` of every package the feature needs. */
  readonly packages: ReadonlyArray<string>
  readonly missing: string
}> {
  override get message() {
    return `${this.feature} needs ${this.packages.join(", ")}, optional packages that are not installed (${this.missing} is missing): ` +
      `npm install ${this.packages.join(" ")}`
  }
}

const missingModule = (cause: unknown): string | undefined => {
  const error = cause as { readonly code?: unknown; readonly message?: unknown }
  if (error?.code !== "ERR_MODULE_NOT_FOUND" && error?.code !== "MODULE_NOT_FOUND") return undefined
  return /(?:Cannot find (?:package|module) ')((?:@[^/']+\/)?[^/']+)/.exec(String(error.message))?.[1] ?? "a package"
}

/**
 * Loads a feature's optional modules (`load` does the dynamic imports). A package that is not
 * installed fails with `OptionalPackagesMissing`; any other failure to load is a defect.
 */
export const loadOptional = <A>(
  feature: string,
  packages: Readonly<Record<string, string>>,
  load: () => Promise<A>
): Effect.Effect<A, OptionalPackagesMissing> =>
  Effect.tryPromise({ try: load, catch: (cause) => cause }).pipe(
    Effect.catchAll((cause) => {
      const missing = missingModule(cause)
      return missing === undefined
        ? Effect.die(cause)
        : Effect.fail(new OptionalPackagesMissing({ feature, packages: Object.entries(packages).map(([name, range]) => `${name}@${range}`), missing }))
    })
  )
