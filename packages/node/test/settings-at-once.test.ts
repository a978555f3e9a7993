import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runCli, STRIPE_SECRET, tempDir } from "./support/gateway-process.js"

/** `hookgate config check` as an operator types it: every problem at once, durations as it prints them, typos warned. */

const check = (env: Record<string, string>, ...args: ReadonlyArray<string>) =>
  runCli({ HOOKGATE_DB: join(tempDir(), "db"), ...env }, ["config", "check", ...args])

const valueOf = (stdout: string, setting: string) => new RegExp(`^${setting}\\s+(.+)$`, "m").exec(stdout)?.[1]

describe("settings", () => {
  it("every problem is reported in one run: a bad port, a bad duration, a cap of 0 and Resend without its key", async () => {
    const { code, stderr, stdout } = await check({
      STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
      PORT: "abc",
      HOOKGATE_LEASE: "foo",
      HOOKGATE_MAX_ATTEMPTS: "0",
      HOOKGATE_MAILER: "resend"
    })
    expect(code).toBe(1)
    expect(stdout).toBe("")
    const problems = stderr.split("\n").filter((l) => l.startsWith("  "))
    expect(problems.map((p) => p.trim().split(":")[0]).sort()).toEqual(["HOOKGATE_LEASE", "HOOKGATE_MAX_ATTEMPTS", "PORT", "RESEND_API_KEY"])
    // The duration's refusal lists what it accepts.
    expect(stderr).toMatch(/HOOKGATE_LEASE: .*5m.*2m 30s.*5 minutes.*30000.*PT5M/)
  })

  it("durations are read as config check prints them, in Effect's words, as milliseconds and as ISO 8601", async () => {
    const { code, stderr, stdout } = await check({
      STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
      HOOKGATE_LEASE: "5m",
      HOOKGATE_SWEEP_EVERY: "2m 30s",
      HOOKGATE_RETRY_BACKOFF: "30000",
      HOOKGATE_SEND_TIMEOUT: "PT1M",
      HOOKGATE_SHUTDOWN_GRACE: "15 seconds",
      HOOKGATE_DB_BUSY_TIMEOUT: "1500ms"
    })
    expect(code, stderr).toBe(0)
    expect(valueOf(stdout, "HOOKGATE_LEASE")).toBe("5m")
    expect(valueOf(stdout, "HOOKGATE_SWEEP_EVERY")).toBe("2m 30s")
    expect(valueOf(stdout, "HOOKGATE_RETRY_BACKOFF")).toBe("30s")
    expect(valueOf(stdout, "HOOKGATE_SEND_TIMEOUT")).toBe("1m")
    expect(valueOf(stdout, "HOOKGATE_SHUTDOWN_GRACE")).toBe("15s")
    expect(valueOf(stdout, "HOOKGATE_DB_BUSY_TIMEOUT")).toBe("1s 500ms")
    // What it printed reads back the same: the printed values as settings are valid too.
    const again = await check({
      STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
      HOOKGATE_LEASE: valueOf(stdout, "HOOKGATE_LEASE")!,
      HOOKGATE_SWEEP_EVERY: valueOf(stdout, "HOOKGATE_SWEEP_EVERY")!,
      HOOKGATE_DB_BUSY_TIMEOUT: valueOf(stdout, "HOOKGATE_DB_BUSY_TIMEOUT")!
    })
    expect(again.code, again.stderr).toBe(0)
  })

  it("HOOKGATE_DATABASE_URL must be a postgres:// or postgresql:// URL", async () => {
    for (const url of ["mysql://x", "x", "postgres:/x", "http://db:5432/x"]) {
      const { code, stderr } = await check({ STRIPE_WEBHOOK_SECRET: STRIPE_SECRET, HOOKGATE_DATABASE_URL: url })
      expect({ url, code }).toEqual({ url, code: 1 })
      expect(stderr).toContain("HOOKGATE_DATABASE_URL: must be a postgres:// or postgresql:// URL")
      expect(stderr).not.toContain(url)
    }
  })

  it("a HOOKGATE_ name hookgate does not read is warned about, with the name it is close to, in the environment and in a --config file", async () => {
    const dir = tempDir()
    const file = join(dir, "settings.env")
    writeFileSync(file, "HOOKGATE_SWEEP_EVRY=1m\nHOOKGATE_NOT_A_THING=1\n")
    const { code, stderr } = await runCli(
      { STRIPE_WEBHOOK_SECRET: STRIPE_SECRET, HOOKGATE_DB: join(dir, "db"), HOOKGATE_MAX_ATTEMPT: "3", HOOKGATE_ALERT_EMAIL_TO: "me@example.com" },
      ["config", "check", "--config", file]
    )
    expect(code, stderr).toBe(0)
    expect(stderr).toContain("HOOKGATE_MAX_ATTEMPT (environment) is not a hookgate setting and is ignored: did you mean HOOKGATE_MAX_ATTEMPTS?")
    expect(stderr).toContain("HOOKGATE_ALERT_EMAIL_TO (environment) is not a hookgate setting and is ignored: did you mean HOOKGATE_OWNER_EMAIL?")
    expect(stderr).toContain(`HOOKGATE_SWEEP_EVRY (settings file ${file}) is not a hookgate setting and is ignored: did you mean HOOKGATE_SWEEP_EVERY?`)
    expect(stderr).toMatch(/HOOKGATE_NOT_A_THING \(settings file .*\) is not a hookgate setting and is ignored\n/)
    // The known names are not warned about.
    expect(stderr).not.toContain("HOOKGATE_DB (")
  })
})
