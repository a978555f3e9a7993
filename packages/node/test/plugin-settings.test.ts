import { startPaddleTestServer } from "@hookgate/provider-paddle/testing"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { ADMIN_TOKEN, LEMONSQUEEZY_SECRET, PADDLE_SECRET, runCli, startGateway, tempDir } from "./support/gateway-process.js"
import { admin } from "./support/webhooks.js"

/** The settings of Lemon Squeezy, Polar, Paddle, SMTP and Postmark, as an operator meets them through the `hookgate` binary. */

const check = (env: Record<string, string>, ...args: ReadonlyArray<string>) =>
  runCli({ HOOKGATE_DB: join(tempDir(), "db"), ...env }, ["config", "check", ...args])

const valueOf = (stdout: string, setting: string) => new RegExp(`^${setting}\\s+(.+)$`, "m").exec(stdout)?.[1]
const problemsOf = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("  ")).map((p) => p.trim())

describe("the new providers' and mailers' settings", () => {
  it("SMTP's and Paddle's missing settings are reported with every other problem, in one run", async () => {
    const { code, stderr, stdout } = await check({
      LEMONSQUEEZY_WEBHOOK_SECRET: LEMONSQUEEZY_SECRET,
      PADDLE_WEBHOOK_SECRET: PADDLE_SECRET,
      HOOKGATE_MAILER: "smtp",
      SMTP_POOL_SIZE: "0",
      PORT: "abc"
    })
    expect(code).toBe(1)
    expect(stdout).toBe("")
    const problems = problemsOf(stderr)
    expect(problems.map((p) => p.split(":")[0]).sort()).toEqual(["PADDLE_API_KEY", "PORT", "SMTP_HOST", "SMTP_POOL_SIZE"])
    expect(problems.find((p) => p.startsWith("PADDLE_API_KEY"))).toContain("needed with PADDLE_WEBHOOK_SECRET")
    expect(problems.find((p) => p.startsWith("SMTP_HOST"))).toContain("is not set")

    const postmark = await check({ POLAR_WEBHOOK_SECRET: "polar_whs_x", HOOKGATE_MAILER: "postmark", PADDLE_ENVIRONMENT: "staging" })
    expect(postmark.code).toBe(1)
    expect(problemsOf(postmark.stderr).map((p) => p.split(":")[0]).sort()).toEqual(["PADDLE_ENVIRONMENT", "POSTMARK_SERVER_TOKEN"])
  })

  it("the lease must outlast SMTP_TIMEOUT and POSTMARK_TIMEOUT by the margin, as it must Resend's", async () => {
    const smtp = await check({ POLAR_WEBHOOK_SECRET: "polar_whs_x", HOOKGATE_MAILER: "smtp", SMTP_HOST: "smtp.example.com", HOOKGATE_LEASE: "30 seconds" })
    expect(smtp.code).toBe(1)
    expect(smtp.stderr).toMatch(/HOOKGATE_LEASE: must exceed SMTP_TIMEOUT \(30s\) by at least 1s/)
    const postmark = await check({
      POLAR_WEBHOOK_SECRET: "polar_whs_x",
      HOOKGATE_MAILER: "postmark",
      POSTMARK_SERVER_TOKEN: "pm-token",
      POSTMARK_TIMEOUT: "1 minute",
      HOOKGATE_LEASE: "1 minute"
    })
    expect(postmark.code).toBe(1)
    expect(postmark.stderr).toMatch(/HOOKGATE_LEASE: must exceed POSTMARK_TIMEOUT \(1m\) by at least 1s/)
    // Under them, both are servable.
    const fits = await check({ POLAR_WEBHOOK_SECRET: "polar_whs_x", HOOKGATE_MAILER: "smtp", SMTP_HOST: "smtp.example.com", SMTP_TIMEOUT: "10 seconds", HOOKGATE_LEASE: "30 seconds" })
    expect(fits.code, fits.stderr).toBe(0)
  })

  it("config check lists every new setting, each secret <redacted>", async () => {
    const secrets = ["lemon-secret-value", "polar_whs_secret_value", "pdl_ntfset_secret_value", "pdl_sdbx_apikey_secret_value", "smtp-password-value"]
    const smtp = await check({
      LEMONSQUEEZY_WEBHOOK_SECRET: secrets[0]!,
      POLAR_WEBHOOK_SECRET: `${secrets[1]},polar_whs_old`,
      PADDLE_WEBHOOK_SECRET: secrets[2]!,
      PADDLE_API_KEY: secrets[3]!,
      PADDLE_ENVIRONMENT: "sandbox",
      HOOKGATE_MAILER: "smtp",
      SMTP_HOST: "smtp.example.com",
      SMTP_USER: "shop",
      SMTP_PASSWORD: secrets[4]!,
      SMTP_SECURITY: "tls"
    })
    expect(smtp.code, smtp.stderr).toBe(0)
    expect(valueOf(smtp.stdout, "providers")).toBe("lemonsqueezy, polar, paddle")
    expect(valueOf(smtp.stdout, "HOOKGATE_MAILER")).toBe("smtp (smtp.example.com:465, tls)")
    expect(valueOf(smtp.stdout, "LEMONSQUEEZY_WEBHOOK_SECRET")).toBe("<redacted> (1 secret)")
    expect(valueOf(smtp.stdout, "POLAR_WEBHOOK_SECRET")).toBe("<redacted> (2 secrets)")
    expect(valueOf(smtp.stdout, "PADDLE_WEBHOOK_SECRET")).toBe("<redacted> (1 secret)")
    expect(valueOf(smtp.stdout, "PADDLE_API_KEY")).toBe("<redacted>")
    expect(valueOf(smtp.stdout, "PADDLE_API_BASE_URL")).toBe("https://sandbox-api.paddle.com")
    expect(valueOf(smtp.stdout, "SMTP_PORT")).toBe("465")
    expect(valueOf(smtp.stdout, "SMTP_USER")).toBe("shop")
    expect(valueOf(smtp.stdout, "SMTP_PASSWORD")).toBe("<redacted>")
    expect(valueOf(smtp.stdout, "SMTP_TIMEOUT")).toBe("30s")
    for (const secret of secrets) expect(smtp.stdout + smtp.stderr).not.toContain(secret)

    const postmark = await check({
      LEMONSQUEEZY_WEBHOOK_SECRET: secrets[0]!,
      HOOKGATE_MAILER: "postmark",
      POSTMARK_SERVER_TOKEN: "postmark-token-value",
      POSTMARK_MESSAGE_STREAM: "receipts"
    })
    expect(postmark.code, postmark.stderr).toBe(0)
    expect(valueOf(postmark.stdout, "HOOKGATE_MAILER")).toBe("postmark (https://api.postmarkapp.com)")
    expect(valueOf(postmark.stdout, "POSTMARK_SERVER_TOKEN")).toBe("<redacted>")
    expect(valueOf(postmark.stdout, "POSTMARK_MESSAGE_STREAM")).toBe("receipts")
    expect(valueOf(postmark.stdout, "POSTMARK_TIMEOUT")).toBe("10s")
    expect(valueOf(postmark.stdout, "PADDLE_API_KEY")).toBeUndefined() // Paddle is not mounted
    expect(postmark.stdout).not.toMatch(/^SMTP_/m)
    expect(postmark.stdout + postmark.stderr).not.toContain("postmark-token-value")
  })

  it("a plugin's setting misspelt in a settings file is warned about with the name it is close to; other programs' names in the environment are not", async () => {
    const dir = tempDir()
    const file = join(dir, "hookgate.env")
    writeFileSync(file, "HOOKGATE_MAILER=smtp\nSMTP_HOST=smtp.example.com\nSMTP_PASWORD=x\nPADDLE_API_KYE=y\n")
    const { code, stderr } = await runCli(
      { HOOKGATE_DB: join(dir, "db"), POLAR_WEBHOOK_SECRET: "polar_whs_x", STRIPE_SECRET_KEY: "sk_app_own" },
      ["config", "check", "--config", file]
    )
    expect(code, stderr).toBe(0)
    expect(stderr).toContain(`SMTP_PASWORD (settings file ${file}) is not a hookgate setting and is ignored: did you mean SMTP_PASSWORD?`)
    expect(stderr).toContain(`PADDLE_API_KYE (settings file ${file}) is not a hookgate setting and is ignored: did you mean PADDLE_API_KEY?`)
    expect(stderr).not.toContain("STRIPE_SECRET_KEY")
    expect(stderr).not.toContain("SMTP_HOST (")
  })
})

describe("send-test with the new providers", () => {
  it("signs a Lemon Squeezy, a Polar and a Paddle paying event that the running gateway sends", async () => {
    const paddle = await startPaddleTestServer()
    const dir = tempDir()
    const env = {
      PORT: "0",
      HOOKGATE_DB: join(dir, "hookgate.db"),
      HOOKGATE_OUTBOX: join(dir, "outbox"),
      HOOKGATE_ADMIN_TOKEN: ADMIN_TOKEN,
      LEMONSQUEEZY_WEBHOOK_SECRET: LEMONSQUEEZY_SECRET,
      POLAR_WEBHOOK_SECRET: "polar_whs_send_test",
      PADDLE_WEBHOOK_SECRET: PADDLE_SECRET,
      PADDLE_API_KEY: paddle.apiKey,
      PADDLE_API_BASE_URL: paddle.url
    }
    const gateway = await startGateway(env)
    try {
      const port = new URL(gateway.url).port
      const customer = paddle.addCustomer({ email: "paddle-buyer@example.com" })
      for (const [provider, extra] of [["lemonsqueezy", []], ["polar", []], ["paddle", ["--customer", customer]]] as const) {
        const { code, stderr, stdout } = await runCli({ ...env, PORT: port }, ["send-test", provider, "--replays", "2", ...extra])
        expect({ provider, code }, stdout + stderr).toEqual({ provider, code: 0 })
        expect(stdout).toMatch(/summary: .*sent 1/)
        expect(stdout).toContain(`${provider}:`)
      }
      const stats = await admin(gateway.url, "/admin/stats", {}, ADMIN_TOKEN)
      expect(stats.body.orders.sent).toBe(3)
      // Without a customer of the shop's Paddle account there is no email to fetch: refused before posting.
      const noCustomer = await runCli({ ...env, PORT: port }, ["send-test", "paddle"])
      expect(noCustomer.code).toBe(1)
      expect(noCustomer.stderr).toContain("send-test paddle needs --customer ctm_")
      expect(noCustomer.stdout).not.toContain("posting")
      // Paddle's sample names the customer given; its email came from Paddle's API.
      const list = await runCli(env, ["orders", "list", "--status", "sent"])
      const key = /(paddle:txn_\w+)/.exec(list.stdout)![1]!
      expect(JSON.parse((await runCli(env, ["orders", "show", key])).stdout).order.fulfilment.email).toBe("paddle-buyer@example.com")
    } finally {
      await gateway.stop()
      await paddle.close()
    }
  }, 90_000)
})
