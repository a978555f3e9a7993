import { describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as TestServices from "effect/TestServices"
import type { TestContext } from "vitest"
import { Digest, type DigestService, webCryptoDigest } from "@hookgate/core"
import { NodeHmac } from "@hookgate/core/node"
import { Hmac, type HmacService, webCryptoHmac } from "@hookgate/core/providers"

const nodeCryptoDigest = NodeHmac.digest
const nodeCryptoHmac = NodeHmac.service

/** The HMAC implementations every provider test runs under: Web Crypto (the default) and node:crypto. */
export const hmacImplementations: ReadonlyArray<HmacService> = [webCryptoHmac, nodeCryptoHmac]

/** `it.effect` and `it.scoped`, each test run with one `Hmac` implementation provided. */
export interface HmacTester {
  readonly effect: <A, E>(
    name: string,
    self: (ctx: TestContext) => Effect.Effect<A, E, TestServices.TestServices>,
    timeout?: number
  ) => void
  readonly scoped: <A, E>(
    name: string,
    self: (ctx: TestContext) => Effect.Effect<A, E, TestServices.TestServices | Scope.Scope>,
    timeout?: number
  ) => void
}

// Each HMAC implementation comes with its runtime's digest, as `NodeHmac.layer()` provides both.
const digestOf = (hmac: HmacService): DigestService => hmac === nodeCryptoHmac ? nodeCryptoDigest : webCryptoDigest

const under = (hmac: HmacService) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  self.pipe(Effect.provideService(Hmac, hmac), Effect.provideService(Digest, digestOf(hmac)))

/** The tester whose tests run under `hmac` (and the same runtime's `Digest`). */
export const testerUnder = (hmac: HmacService): HmacTester => ({
  effect: (name, self, timeout) => it.effect(name, (ctx) => under(hmac)(self(ctx)), timeout),
  scoped: (name, self, timeout) => it.scoped(name, (ctx) => under(hmac)(self(ctx)), timeout)
})

/**
 * Declares `suite` once per HMAC implementation, as `<name> [web-crypto]` and
 * `<name> [node:crypto]`; the `it` it is given runs each test with that `Hmac`,
 * so the provider under test and the signers both use it:
 *
 *     describeEachHmac("stripe: the official library as oracle", (it) => {
 *       it.effect("…", () => …)
 *     })
 */
export const describeEachHmac = (name: string, suite: (it: HmacTester, hmac: HmacService) => void): void => {
  for (const hmac of hmacImplementations) describe(`${name} [${hmac.name}]`, () => suite(testerUnder(hmac), hmac))
}
