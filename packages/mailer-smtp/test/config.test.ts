import { Mailer } from "@hookgate/core/mail"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Cause, ConfigProvider, Duration, Effect, Exit, Layer } from "effect"
import { layerConfig } from "../src/smtp.js"
import { type SmtpTestServerShape, startSmtpTestServer } from "../src/testing/index.js"
import { email } from "./support.js"

let server: SmtpTestServerShape
beforeAll(async () => {
  server = await startSmtpTestServer({ security: "none" })
})
afterAll(() => server.close())

const withEnv = (env: Record<string, string>) =>
  <A, E>(effect: Effect.Effect<A, E, Mailer>) =>
    effect.pipe(
      Effect.provide(layerConfig().pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))))
    )

describe("Smtp.layerConfig", () => {
  it.live("reads SMTP_HOST, SMTP_PORT, SMTP_SECURITY, SMTP_USER, SMTP_PASSWORD and sends with them", () =>
    Effect.gen(function*() {
      const mailer = yield* Mailer
      expect(Duration.toMillis(mailer.callTimeout!)).toBe(2000)
      yield* mailer.send(email(), { idempotencyKey: "hookgate/order/test:cfg" })
      expect(server.messages.map((m) => [m.user, m.secure])).toEqual([["hookgate", false]])
      expect(server.logins).toEqual([{ user: "hookgate", ok: true }])
    }).pipe(withEnv({
      SMTP_HOST: server.host,
      SMTP_PORT: String(server.port),
      SMTP_SECURITY: "none",
      SMTP_USER: "hookgate",
      SMTP_PASSWORD: "smtp-test-password",
      SMTP_TIMEOUT: "2 seconds"
    })))

  const refused = (env: Record<string, string>) =>
    Effect.map(Effect.exit(Effect.scoped(Layer.build(
      layerConfig().pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))
    ))), (exit) => {
      if (Exit.isSuccess(exit)) throw new Error("expected the settings to be refused")
      return Cause.pretty(exit.cause)
    })

  it.effect("refuses a user without a password, an unknown security mode, a missing host; no secret in the message", () =>
    Effect.gen(function*() {
      expect(yield* refused({ SMTP_HOST: "smtp.example.com", SMTP_USER: "hookgate" })).toContain(
        "SMTP_USER and SMTP_PASSWORD go together"
      )
      const password = yield* refused({ SMTP_HOST: "smtp.example.com", SMTP_PASSWORD: "s3cret-value" })
      expect(password).toContain("SMTP_USER and SMTP_PASSWORD go together")
      expect(password).not.toContain("s3cret-value")
      expect(yield* refused({ SMTP_HOST: "smtp.example.com", SMTP_SECURITY: "ssl" })).toContain("SMTP_SECURITY")
      expect(yield* refused({})).toContain("SMTP_HOST")
      expect(yield* refused({ SMTP_HOST: "smtp.example.com", SMTP_PORT: "70000" })).toContain("SMTP_PORT")
    }))
})
