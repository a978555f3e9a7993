// A platform's Worker script serving two shops (run in Miniflare by tenants-miniflare.test.ts):
// `/shops/<a|b>/…` is handed to one hookgate Worker with that shop's own env (webhook
// secret, sender, D1 database), built afresh per request as such a platform might.
// Sent emails are rows in the shop's own D1 database, so the test can read them.
import * as SqlClient from "@effect/sql/SqlClient"
import { Cloudflare } from "@hookgate/cloudflare"
import { Renderer, RetryPolicy } from "@hookgate/core"
import { Alerter } from "@hookgate/core/alerts"
import { Mailer, OutgoingEmail, SendReceipt } from "@hookgate/core/mail"
import { Providers } from "@hookgate/core/providers"
import { TestProvider } from "@hookgate/testing"
import { Config, Effect, Layer } from "effect"

const Tables = Layer.effectDiscard(Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`CREATE TABLE IF NOT EXISTS test_emails (sender TEXT NOT NULL, recipient TEXT NOT NULL, subject TEXT NOT NULL)`))

/** "Sends" by writing a row to the shop's D1 database. */
const RecordingMailer = Layer.effect(Mailer, Effect.map(SqlClient.SqlClient, (sql) =>
  Mailer.of({
    name: "d1",
    honoursIdempotencyKeys: false,
    send: (email) =>
      sql`INSERT INTO test_emails VALUES (${email.from}, ${email.to}, ${email.subject})`.pipe(
        Effect.as(new SendReceipt({ mailer: "d1", messageId: crypto.randomUUID(), acceptedAt: Date.now() })),
        Effect.orDie
      )
  })))

/** The shop's own sender, from its env. */
const ShopRenderer = Layer.unwrapEffect(Effect.map(Config.string("SHOP_FROM"), (from) =>
  Renderer.fromFunction((order) =>
    new OutgoingEmail({ from, to: order.fulfilment.email, subject: `Order ${order.key}`, text: "Thanks!" }))))

const ShopProvider = Layer.unwrapEffect(Effect.map(Config.redacted("TEST_WEBHOOK_SECRET"), (secret) =>
  Providers.layer(TestProvider.make({ secret }))))

const hookgate = Cloudflare.makeWorker({
  layer: Layer.mergeAll(ShopProvider, ShopRenderer, RetryPolicy.layer(), Alerter.layerLog(), Tables).pipe(
    Layer.provideMerge(RecordingMailer),
    Layer.provideMerge(Cloudflare.layerD1Store({ binding: "DB", migrate: true }))
  )
})

type PlatformEnv = Record<string, unknown>

export default {
  fetch(request: Request, env: PlatformEnv, ctx: Cloudflare.WorkerExecutionContext): Promise<Response> | Response {
    const url = new URL(request.url)
    const match = /^\/shops\/(a|b)(\/.*)$/.exec(url.pathname)
    if (match === null) return new Response("no such shop", { status: 404 })
    const shop = match[1]!.toUpperCase()
    const shopEnv = { TEST_WEBHOOK_SECRET: env[`SECRET_${shop}`], SHOP_FROM: env[`FROM_${shop}`], DB: env[`DB_${shop}`] }
    return hookgate.fetch(new Request(new URL(match[2]!, url), request), shopEnv, ctx)
  }
}
