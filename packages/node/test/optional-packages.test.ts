import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { loadOptional, OPTIONAL_PACKAGES, OptionalPackagesMissing } from "../src/optional-packages.js"

/**
 * Tracing and /metrics load their OpenTelemetry packages only when turned on; a package that
 * is not installed is a typed failure whose message is the install line. (test/consumer runs
 * the real binary with HOOKGATE_METRICS=prometheus where they are not installed.)
 */
const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as {
  peerDependencies: Record<string, string>
  peerDependenciesMeta: Record<string, { optional?: boolean }>
}

/** Node's own error for an import of a package that is not installed. */
const notInstalled = (name: string) =>
  Object.assign(new Error(`Cannot find package '${name}' imported from /app/node_modules/@hookgate/node/dist/src/tracing.js`), {
    code: "ERR_MODULE_NOT_FOUND"
  })

describe("optional packages", () => {
  it("are the optional peers package.json declares, at the same ranges", () => {
    for (const packages of Object.values(OPTIONAL_PACKAGES)) {
      for (const [name, range] of Object.entries(packages)) {
        expect([name, manifest.peerDependencies[name], manifest.peerDependenciesMeta[name]?.optional]).toEqual([name, range, true])
      }
    }
  })

  it.effect("a missing one fails with OptionalPackagesMissing naming what to install", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        loadOptional("metrics (HOOKGATE_METRICS=prometheus)", OPTIONAL_PACKAGES.metrics, () =>
          Promise.reject(notInstalled("@opentelemetry/exporter-prometheus")))
      )
      expect(error).toBeInstanceOf(OptionalPackagesMissing)
      expect(error._tag).toBe("OptionalPackagesMissing")
      expect(error.missing).toBe("@opentelemetry/exporter-prometheus")
      expect(error.message).toBe(
        "metrics (HOOKGATE_METRICS=prometheus) needs @effect/opentelemetry@^0.64.1, @opentelemetry/exporter-prometheus@^0.223.0, " +
          "optional packages that are not installed (@opentelemetry/exporter-prometheus is missing): " +
          "npm install @effect/opentelemetry@^0.64.1 @opentelemetry/exporter-prometheus@^0.223.0"
      )
    }))

  it.effect("an installed one loads; a module that fails for another reason is a defect, not a missing package", () =>
    Effect.gen(function*() {
      const tracer = yield* loadOptional("traces", OPTIONAL_PACKAGES.tracing, () => import("@effect/opentelemetry/OtlpTracer"))
      expect(typeof tracer.layer).toBe("function")
      const broken = yield* Effect.exit(loadOptional("traces", OPTIONAL_PACKAGES.tracing, () => Promise.reject(new SyntaxError("bad module"))))
      expect(Exit.isFailure(broken) && Cause.isDie(broken.cause)).toBe(true)
    }))
})
