/**
 * The test Worker: hookgate's pipeline (in-memory store, test provider,
 * recording alerter) sending through the Cloudflare mailer on Miniflare's real
 * `send_email` bindings. Bundled by esbuild in the tests; `cloudflare:*` stays external.
 */
import { EmailMessage } from "cloudflare:email"
import { OrderStore, receive, RetryPolicy, sweep } from "@hookgate/core"
import { AlertStore } from "@hookgate/core/alerts"
import { type MailerError, Mailer, OutgoingEmail } from "@hookgate/core/mail"
import { Providers, WebhookRequest } from "@hookgate/core/providers"
import { MemoryStore, RecordingAlerter, TestProvider, TestRenderer } from "@hookgate/testing"
import { Duration, Effect, Layer, ManagedRuntime, Redacted, Schema } from "effect"
import { type EmailMessageLike, type EmailSendingMessage, layer as cloudflareEmail, type SendEmailBinding } from "../../src/CloudflareEmail.js"

interface Env {
  /** `send_email` with no restriction: the Email Sending form. */
  readonly EMAIL: SendEmailBinding
  /** `send_email` with `allowed_destination_addresses`: the Email Routing form. */
  readonly ROUTED: SendEmailBinding
  readonly SECRET: string
}

type Mode = "sending" | "routing" | "routing-dynamic" | "sending-flaky"

/** Every argument a binding was called with, as the Worker saw it (Miniflare does not log builder headers). */
const recorded: Array<unknown> = []
let rateLimitedCalls = 0

const recording = (binding: SendEmailBinding): SendEmailBinding => ({
  send: (message: EmailMessageLike | EmailSendingMessage) => {
    recorded.push(message instanceof EmailMessage ? { emailMessage: { from: message.from, to: message.to } } : message)
    return binding.send(message as never)
  }
})

/** A test double: Miniflare cannot be made to rate-limit, so the next N calls throw as Email Sending does. */
const rateLimited = (binding: SendEmailBinding): SendEmailBinding => ({
  send: (message: EmailMessageLike | EmailSendingMessage) => {
    if (rateLimitedCalls > 0) {
      rateLimitedCalls -= 1
      recorded.push({ rateLimited: true })
      return Promise.reject(Object.assign(new Error("rate limit exceeded"), { code: "E_RATE_LIMIT_EXCEEDED" }))
    }
    return binding.send(message as never)
  }
})

const mailerFor = (mode: Mode, env: Env) => {
  switch (mode) {
    case "sending":
      return cloudflareEmail({ form: "sending", binding: recording(env.EMAIL) })
    case "sending-flaky":
      return cloudflareEmail({ form: "sending", binding: rateLimited(recording(env.EMAIL)) })
    case "routing":
      return cloudflareEmail({ form: "routing", binding: recording(env.ROUTED), EmailMessage })
    case "routing-dynamic":
      return cloudflareEmail({ form: "routing", binding: recording(env.ROUTED) })
  }
}

const runtimes = new Map<Mode, ReturnType<typeof makeRuntime>>()
const makeRuntime = (mode: Mode, env: Env) =>
  ManagedRuntime.make(
    Layer.mergeAll(
      MemoryStore.layer,
      mailerFor(mode, env),
      RecordingAlerter.layer(),
      Providers.layer(TestProvider.make({ secret: Redacted.make(env.SECRET) })),
      TestRenderer.layer,
      RetryPolicy.layer({ inRequestBase: 0, backoffBase: "10 millis" })
    )
  )
const runtimeFor = (mode: Mode, env: Env) => {
  const existing = runtimes.get(mode)
  if (existing) return existing
  const runtime = makeRuntime(mode, env)
  runtimes.set(mode, runtime)
  return runtime
}

const errorJson = (error: MailerError) => ({
  _tag: error._tag,
  detail: error.detail,
  code: error._tag === "Rejected" ? error.code : undefined,
  alert: error._tag === "Transient" ? error.alert : undefined,
  retryAfterMillis: error._tag === "Transient" && error.retryAfter ? Duration.toMillis(error.retryAfter) : undefined
})

const SendRequest = Schema.Struct({ email: OutgoingEmail, idempotencyKey: Schema.String })

const json = (body: unknown, status = 200) => Response.json(body, { status })

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url)
    const [, first, action] = url.pathname.split("/")
    if (first === "recorded") return json(recorded)
    if (first === "script") {
      rateLimitedCalls = Number(url.searchParams.get("rateLimited") ?? 0)
      return json({ rateLimitedCalls })
    }
    const mode = first as Mode
    const runtime = runtimeFor(mode, env)
    switch (action) {
      case "webhook": {
        const body = new Uint8Array(await request.arrayBuffer())
        const outcome = await runtime.runPromise(Effect.either(receive("test", WebhookRequest.fromParts(body, request.headers))))
        return json(outcome._tag === "Right" ? outcome.right : { error: (outcome.left as { _tag: string })._tag })
      }
      case "sweep":
        return json(await runtime.runPromise(sweep()))
      case "order":
        return json(
          await runtime.runPromise(Effect.flatMap(OrderStore, (store) => store.get(url.searchParams.get("key") ?? "")).pipe(
            Effect.map((order) => order._tag === "Some" ? order.value : null)
          ))
        )
      case "alerts":
        return json(
          await runtime.runPromise(Effect.all({
            attempted: Effect.flatMap(RecordingAlerter, (alerter) => alerter.attempts),
            stored: Effect.flatMap(AlertStore, (store) => store.list({ limit: 100 }))
          }))
        )
      case "send": {
        const { email, idempotencyKey } = await Effect.runPromise(Schema.decodeUnknown(SendRequest)(await request.json()))
        const result = await runtime.runPromise(Effect.either(Effect.flatMap(Mailer, (mailer) => mailer.send(email, { idempotencyKey }))))
        return json(result._tag === "Right" ? { receipt: result.right } : { error: errorJson(result.left as MailerError) })
      }
      default:
        return json({ error: "not_found" }, 404)
    }
  }
}
