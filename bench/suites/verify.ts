import { createHmac } from "node:crypto"
import { NodeHmac } from "@hookgate/core/node"
import { Hmac, utf8 } from "@hookgate/core/providers"
import { StandardWebhooks } from "@hookgate/provider-standard"
import { signStandardRequest } from "@hookgate/provider-standard/testing"
import { Stripe as StripeProvider } from "@hookgate/provider-stripe"
import { checkoutSessionEvent, signStripeRequest } from "@hookgate/provider-stripe/testing"
import { Effect, Redacted } from "effect"
import { Webhook } from "standardwebhooks"
import Stripe from "stripe"
import { type BenchSuite, figure, median, ratePerSecond } from "../lib.js"

/**
 * Issues 3 and 16's figures: verifications per second of a 2 KiB event, one at
 * a time, by provider-stripe beside stripe-node's async (Web Crypto, the Workers
 * path) and sync (node:crypto) verifiers, and by provider-standard beside the
 * `standardwebhooks` package. `stripeVerifyPerSecond` and
 * `standardVerifyPerSecond` are the providers as the Node gateway makes them
 * (node:crypto, `NodeHmac.layer()`); the `…WebCrypto…` figures are the same
 * providers on the default Web Crypto `Hmac`, as a Worker runs them. Our
 * verifiers run through `Effect.runPromise` on Effect's default runtime, so the
 * figure includes the Effect overhead, and include JSON parsing and the envelope
 * decode, as the SDKs parse too.
 *
 * Reference figures say what bounds each path: one `crypto.subtle.sign` and one
 * `createHmac` of the same content with the key made once (no verifier on that
 * implementation can beat them in this harness), and 16 verifications in flight
 * at once, as a server sees concurrent webhooks.
 */

const EVENT_BYTES = 2048
const IN_FLIGHT = 16
const ROUNDS = 7
const ROUND_SECONDS = 0.4

/** A Checkout Session event padded with metadata to exactly `EVENT_BYTES` bytes. */
const stripeEvent = () => {
  const base = checkoutSessionEvent("evt_bench", "checkout.session.completed", {
    id: "cs_bench",
    metadata: { product_id: "course-101", note: "" }
  })
  const pad = "x".repeat(EVENT_BYTES - utf8(base).byteLength)
  return base.replace(`"note":""`, `"note":"${pad}"`)
}

/** A Standard Webhooks `order.paid` padded to exactly `EVENT_BYTES` bytes. */
const standardEvent = () => {
  const base = JSON.stringify({ type: "order.paid", timestamp: "2025-10-09T08:53:20Z", data: { id: "ord_bench", note: "" } })
  return base.replace(`"note":""`, `"note":"${"x".repeat(EVENT_BYTES - utf8(base).byteLength)}"`)
}

/** Operations per second with `inFlight` loops running `op` back to back. */
const concurrentRatePerSecond = async (op: () => Promise<unknown>, inFlight: number, seconds = 2) => {
  const runFor = async (ms: number) => {
    const start = performance.now()
    let count = 0
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (performance.now() - start < ms) {
        await op()
        count++
      }
    }))
    return count / ((performance.now() - start) / 1000)
  }
  await runFor(seconds * 100)
  return runFor(seconds * 1000)
}

interface Measurement {
  readonly key: string
  readonly label: string
  readonly op: () => unknown
  readonly inFlight?: number
}

/**
 * Each figure is the median of `ROUNDS` short runs, the rounds interleaved
 * across all verifiers, so a burst of load on a shared machine or a late JIT
 * tier does not land on one verifier's whole figure, and no verifier's figure
 * rests on one lucky quiet moment.
 */
const measure = async (measurements: ReadonlyArray<Measurement>) => {
  const rates = new Map<string, Array<number>>(measurements.map((m) => [m.key, []]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const m of measurements) {
      const rate = m.inFlight === undefined
        ? await ratePerSecond(m.op, ROUND_SECONDS)
        : await concurrentRatePerSecond(async () => m.op(), m.inFlight, ROUND_SECONDS)
      rates.get(m.key)!.push(rate)
    }
  }
  return measurements.map((m) => figure(m.key, m.label, median(rates.get(m.key)!), "/s"))
}

const run = async () => {
  const stripeSecret = "whsec_bench_5f1c0a7e2b9d4c68a1e3f0b2d7c9e4a6"
  const stripePayload = stripeEvent()
  const stripeRequest = await Effect.runPromise(signStripeRequest(stripeSecret, stripePayload))
  const stripeHeader = stripeRequest.header("stripe-signature")!
  const onNode = <A>(effect: Effect.Effect<A>) => Effect.runPromise(Effect.provideService(effect, Hmac, NodeHmac.service))
  const stripeProvider = await onNode(StripeProvider.make({ secrets: Redacted.make(stripeSecret) }))
  const stripeWebCryptoProvider = await Effect.runPromise(StripeProvider.make({ secrets: Redacted.make(stripeSecret) }))
  const stripe = new Stripe("sk_test_bench_only")
  const subtle = Stripe.createSubtleCryptoProvider()

  const standardSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
  const standardPayload = standardEvent()
  const standardRequest = await Effect.runPromise(signStandardRequest(standardSecret, standardPayload, { id: "msg_bench" }))
  const standardOptions = { name: "bench", secrets: Redacted.make(standardSecret), fulfilment: () => Effect.succeedNone }
  const standardProvider = await onNode(StandardWebhooks.make(standardOptions))
  const standardWebCryptoProvider = await Effect.runPromise(StandardWebhooks.make(standardOptions))
  const standardSdk = new Webhook(standardSecret)

  if (utf8(stripePayload).byteLength !== EVENT_BYTES || standardRequest.body.byteLength !== EVENT_BYTES) {
    throw new Error("bench events are not 2 KiB")
  }
  // Every verifier must accept its event before it is timed.
  await Effect.runPromise(stripeProvider.verify(stripeRequest))
  await Effect.runPromise(stripeWebCryptoProvider.verify(stripeRequest))
  await stripe.webhooks.constructEventAsync(stripePayload, stripeHeader, stripeSecret, undefined, subtle)
  stripe.webhooks.constructEvent(stripePayload, stripeHeader, stripeSecret)
  await Effect.runPromise(standardProvider.verify(standardRequest))
  await Effect.runPromise(standardWebCryptoProvider.verify(standardRequest))
  standardSdk.verify(standardPayload, standardRequest.headers)

  const encoder = new TextEncoder()
  const ceilingKey = await crypto.subtle.importKey("raw", encoder.encode(stripeSecret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign"
  ])
  const signedContent = encoder.encode(`${Math.floor(Date.now() / 1000)}.${stripePayload}`)
  const nodeKey = encoder.encode(stripeSecret)

  const verifyStripe = () => Effect.runPromise(stripeProvider.verify(stripeRequest))
  const verifyStripeWebCrypto = () => Effect.runPromise(stripeWebCryptoProvider.verify(stripeRequest))
  const verifyStripeSdkAsync = () =>
    stripe.webhooks.constructEventAsync(stripePayload, stripeHeader, stripeSecret, undefined, subtle)

  return measure([
    { key: "stripeVerifyPerSecond", label: "provider-stripe verify, 2 KiB (node:crypto)", op: verifyStripe },
    { key: "stripeVerifyWebCryptoPerSecond", label: "provider-stripe verify, 2 KiB (Web Crypto)", op: verifyStripeWebCrypto },
    { key: "stripeSdkAsyncVerifyPerSecond", label: "stripe constructEventAsync (SubtleCrypto)", op: verifyStripeSdkAsync },
    {
      key: "stripeSdkSyncVerifyPerSecond",
      label: "stripe constructEvent (node:crypto)",
      op: () => stripe.webhooks.constructEvent(stripePayload, stripeHeader, stripeSecret)
    },
    {
      key: "stripeSdkAsyncNodeCryptoVerifyPerSecond",
      label: "stripe constructEventAsync (its Node default, node:crypto)",
      op: () => stripe.webhooks.constructEventAsync(stripePayload, stripeHeader, stripeSecret)
    },
    {
      key: "standardVerifyPerSecond",
      label: "provider-standard verify, 2 KiB (node:crypto)",
      op: () => Effect.runPromise(standardProvider.verify(standardRequest))
    },
    {
      key: "standardVerifyWebCryptoPerSecond",
      label: "provider-standard verify, 2 KiB (Web Crypto)",
      op: () => Effect.runPromise(standardWebCryptoProvider.verify(standardRequest))
    },
    {
      key: "standardSdkVerifyPerSecond",
      label: "standardwebhooks verify",
      op: () => standardSdk.verify(standardPayload, standardRequest.headers)
    },
    {
      key: "webCryptoHmacCeilingPerSecond",
      label: "one crypto.subtle.sign, key imported once",
      op: () => crypto.subtle.sign("HMAC", ceilingKey, signedContent)
    },
    {
      key: "nodeCryptoHmacCeilingPerSecond",
      label: "one createHmac (node:crypto)",
      op: () => createHmac("sha256", nodeKey).update(signedContent).digest()
    },
    {
      key: "stripeVerifyConcurrentPerSecond",
      label: `provider-stripe verify, ${IN_FLIGHT} in flight (node:crypto)`,
      op: verifyStripe,
      inFlight: IN_FLIGHT
    },
    {
      key: "stripeVerifyWebCryptoConcurrentPerSecond",
      label: `provider-stripe verify, ${IN_FLIGHT} in flight (Web Crypto)`,
      op: verifyStripeWebCrypto,
      inFlight: IN_FLIGHT
    },
    {
      key: "stripeSdkAsyncVerifyConcurrentPerSecond",
      label: `stripe constructEventAsync (SubtleCrypto), ${IN_FLIGHT} in flight`,
      op: verifyStripeSdkAsync,
      inFlight: IN_FLIGHT
    }
  ])
}

export const verifySuite: BenchSuite = {
  name: "verify",
  run,
  ratios: [
    ["provider-stripe / stripe async, SubtleCrypto (target >= 3)", "stripeVerifyPerSecond", "stripeSdkAsyncVerifyPerSecond"],
    ["provider-stripe / stripe sync, node:crypto (target >= 0.5)", "stripeVerifyPerSecond", "stripeSdkSyncVerifyPerSecond"],
    ["provider-standard / standardwebhooks (target >= 1)", "standardVerifyPerSecond", "standardSdkVerifyPerSecond"],
    ["provider-stripe, Web Crypto / stripe async, SubtleCrypto", "stripeVerifyWebCryptoPerSecond", "stripeSdkAsyncVerifyPerSecond"],
    ["provider-standard, Web Crypto / standardwebhooks", "standardVerifyWebCryptoPerSecond", "standardSdkVerifyPerSecond"],
    ["provider-stripe / the node:crypto ceiling", "stripeVerifyPerSecond", "nodeCryptoHmacCeilingPerSecond"],
    ["provider-stripe, Web Crypto / the Web Crypto ceiling", "stripeVerifyWebCryptoPerSecond", "webCryptoHmacCeilingPerSecond"],
    [
      `provider-stripe / stripe async, SubtleCrypto, ${IN_FLIGHT} in flight`,
      "stripeVerifyConcurrentPerSecond",
      "stripeSdkAsyncVerifyConcurrentPerSecond"
    ]
  ]
}
