import { Mailer } from "@hookgate/core/mail"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Cause, ConfigProvider, Duration, Effect, Exit, Layer } from "effect"
import { layerConfig } from "../src/Smtp.js"
import { type SmtpTestServerShape, startSmtpTestServer } from "../src/testing/index.js"
import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { email, selfSignedCertificate } from "./support.js"

let server: SmtpTestServerShape
let secured: SmtpTestServerShape
let caFile: string
beforeAll(async () => {
  const cert = await selfSignedCertificate()
  caFile = join(await mkdtemp(join(tmpdir(), "hookgate-smtp-")), "ca.pem")
  await writeFile(caFile, cert.cert)
  server = await startSmtpTestServer({ security: "none" })
  secured = await startSmtpTestServer({ security: "starttls", ...cert })
})
afterAll(async () => {
  await Promise.all([server.close(), secured.close()])
})

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

  it.live("SMTP_TLS_CA_FILE trusts a self-signed certificate for STARTTLS", () =>
    Effect.gen(function*() {
      const mailer = yield* Mailer
      yield* mailer.send(email(), { idempotencyKey: "hookgate/order/test:ca" })
      expect(secured.messages.map((m) => [m.user, m.secure])).toEqual([["hookgate", true]])
    }).pipe(withEnv({
      SMTP_HOST: "127.0.0.1",
      SMTP_PORT: String(secured.port),
      SMTP_USER: "hookgate",
      SMTP_PASSWORD: "smtp-test-password",
      SMTP_TLS_CA_FILE: caFile,
      SMTP_TLS_SERVERNAME: "localhost"
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
      expect(yield* refused({ SMTP_HOST: "smtp.example.com", SMTP_TLS_CA_FILE: "/nonexistent/ca.pem" })).toContain(
        "cannot read /nonexistent/ca.pem (ENOENT)"
      )
    }))
})
