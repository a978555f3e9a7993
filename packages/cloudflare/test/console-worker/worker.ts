// A Worker serving the console beside the webhooks (run in Miniflare by console-miniflare.test.ts):
// `consoleRoutes` passed to makeWorker's router, its token read from env on each request. Paths
// under `/no-token` are served with the token removed from env. Sent emails are D1 rows.
import * as SqlClient from "@effect/sql/SqlClient"
import { Cloudflare } from "@hookgate/cloudflare"
import { Renderer, RetryPolicy } from "@hookgate/core"
import { Alerter } from "@hookgate/core/alerts"
import { consoleRoutes } from "@hookgate/core/console"
import { Mailer, OutgoingEmail, SendReceipt } from "@hookgate/core/mail"
import { Providers } from "@hookgate/core/providers"
import { TestProvider } from "@hookgate/testing"
import { Config, Effect, Layer } from "effect"

const Tables = Layer.effectDiscard(Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`CREATE TABLE IF NOT EXISTS test_emails (recipient TEXT NOT NULL, idempotency_key TEXT NOT NULL)`))

const RecordingMailer = Layer.effect(Mailer, Effect.map(SqlClient.SqlClient, (sql) =>
  Mailer.of({
    name: "d1",
    honoursIdempotencyKeys: false,
    send: (email, { idempotencyKey }) =>
      sql`INSERT INTO test_emails VALUES (${email.to}, ${idempotencyKey})`.pipe(
        Effect.as(new SendReceipt({ mailer: "d1", messageId: crypto.randomUUID(), acceptedAt: Date.now() })),
        Effect.orDie
      )
  })))

const hookgate = Cloudflare.makeWorker({
  layer: Layer.mergeAll(
    Layer.unwrapEffect(Effect.map(Config.redacted("TEST_WEBHOOK_SECRET"), (secret) => Providers.layer(TestProvider.make({ secret })))),
    Renderer.fromFunction((order) => new OutgoingEmail({ from: "Shop <orders@shop.example>", to: order.fulfilment.email, subject: `Order ${order.key}`, text: "Thanks!" })),
    RetryPolicy.layer(),
    Alerter.layerLog(),
    Tables
  ).pipe(
    Layer.provideMerge(RecordingMailer),
    Layer.provideMerge(Cloudflare.layerD1Store({ binding: "DB", migrate: true }))
  ),
  router: consoleRoutes({ token: Config.redacted("HOOKGATE_ADMIN_TOKEN") })
})

export default {
  fetch(request: Request, env: Record<string, unknown>, ctx: Cloudflare.WorkerExecutionContext): Promise<Response> | Response {
    const url = new URL(request.url)
    if (!url.pathname.startsWith("/no-token/")) return hookgate.fetch(request, env, ctx)
    const { HOOKGATE_ADMIN_TOKEN: _, ...withoutToken } = env
    return hookgate.fetch(new Request(new URL(url.pathname.slice("/no-token".length), url), request), withoutToken, ctx)
  }
}
