import { Redacted } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/** Runs the real `hookgate` command in a child process (needs `tsc -b`, which `npm test` runs first). */

export const BIN = fileURLToPath(new URL("../../bin/hookgate.js", import.meta.url))
const BUILT = fileURLToPath(new URL("../../dist/src/bin.js", import.meta.url))

export const STRIPE_SECRET = "whsec_test_stripe_secret_for_gateway_tests"
export const CREEM_SECRET = "whsec_test_creem_secret_for_gateway_tests"
export const LEMONSQUEEZY_SECRET = "lemonsqueezy-signing-secret-for-gateway-tests"
export const PADDLE_SECRET = "pdl_ntfset_01gateway_tests_secret"
export const ADMIN_TOKEN = "test-admin-token"

export const tempDir = () => mkdtempSync(join(tmpdir(), "hookgate-node-"))

export interface GatewayProcess {
  readonly url: string
  readonly child: ChildProcess
  /** Everything the process printed so far (stdout and stderr). */
  readonly output: () => string
  /** What it printed on stdout alone (log lines). */
  readonly stdout: () => string
  readonly exited: Promise<number | null>
  readonly stop: (signal?: NodeJS.Signals) => Promise<number | null>
}

/** Base environment: a fresh database and outbox, both providers, an admin token, a free port. */
export const baseEnv = (dir: string): Record<string, string> => ({
  PORT: "0",
  HOOKGATE_DB: join(dir, "hookgate.db"),
  HOOKGATE_OUTBOX: join(dir, "outbox"),
  STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
  CREEM_WEBHOOK_SECRET: CREEM_SECRET,
  HOOKGATE_ADMIN_TOKEN: ADMIN_TOKEN,
  // Off by default (its packages are optional peers, installed here as devDependencies).
  HOOKGATE_METRICS: "prometheus"
})

/** The settings that send through a Resend stand-in (`startResendTestServer`) instead of the outbox. */
export const resendEnv = (resend: { readonly apiKey: string; readonly url: string }): Record<string, string> => ({
  HOOKGATE_MAILER: "resend",
  RESEND_API_KEY: resend.apiKey,
  RESEND_BASE_URL: resend.url
})

/** The settings that send through an SMTP server (`startSmtpTestServer`'s `mailerOptions`). */
export const smtpEnv = (smtp: {
  readonly mailerOptions: { readonly host: string; readonly port?: number; readonly security?: string; readonly auth?: { readonly user: string; readonly password: Redacted.Redacted<string> } }
}): Record<string, string> => ({
  HOOKGATE_MAILER: "smtp",
  SMTP_HOST: smtp.mailerOptions.host,
  SMTP_PORT: String(smtp.mailerOptions.port),
  SMTP_SECURITY: smtp.mailerOptions.security ?? "starttls",
  ...(smtp.mailerOptions.auth === undefined
    ? {}
    : { SMTP_USER: smtp.mailerOptions.auth.user, SMTP_PASSWORD: Redacted.value(smtp.mailerOptions.auth.password) })
})

/** The settings that send through a Postmark stand-in (`startPostmarkTestServer`). */
export const postmarkEnv = (postmark: { readonly serverToken: string; readonly url: string }): Record<string, string> => ({
  HOOKGATE_MAILER: "postmark",
  POSTMARK_SERVER_TOKEN: postmark.serverToken,
  POSTMARK_BASE_URL: postmark.url
})

export const REPOSITORY_ROOT = fileURLToPath(new URL("../../../../", import.meta.url))

/** How to launch: `hookgate <args>` (default), or `npm start` in the repository root, as the README says. */
export type Launch = { readonly args: ReadonlyArray<string> } | { readonly npmStart: true }

/** Starts the gateway and waits until it prints the address it listens on. */
export const startGateway = async (
  env: Record<string, string>,
  launch: Launch = { args: ["serve"] },
  // Generous: on a loaded 2-core machine a cold start (`npm start` runs `tsc -b` first) takes tens of seconds.
  startTimeoutMs = 60_000
): Promise<GatewayProcess> => {
  if (!existsSync(BUILT)) throw new Error("run `tsc -b` first (npm test does)")
  const viaNpm = "npmStart" in launch
  const child = spawn(viaNpm ? "npm" : process.execPath, viaNpm ? ["start"] : [BIN, ...launch.args], {
    cwd: REPOSITORY_ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // npm runs the gateway in a child shell: its own process group lets `stop` signal them all.
    detached: viaNpm
  })
  let output = ""
  let stdout = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    output += chunk.toString()
    stdout += chunk.toString()
  })
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${output}`)), startTimeoutMs)
    const check = () => {
      const match = /listening on (http:\/\/(?:localhost|127\.0\.0\.1):\d+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout!.on("data", check)
    child.stderr!.on("data", check)
    void exited.then((code) => reject(new Error(`gateway exited (${code}) before listening:\n${output}`)))
  })
  return {
    url,
    child,
    output: () => output,
    stdout: () => stdout,
    exited,
    stop: (signal = "SIGTERM") => {
      if (child.exitCode === null) {
        if (viaNpm) process.kill(-child.pid!, signal)
        else child.kill(signal)
      }
      return exited
    }
  }
}

/** Runs `hookgate <args>` to completion. */
export const runCli = (env: Record<string, string>, args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? "", ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
  })
