import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { exampleDir } from "./support/bundle.js"
import { type Example, startExample } from "./support/harness.js"
import { curlRequest, type CurlRequest, parseCommands, type ShellCommand, shellBlocks } from "./support/shell.js"
import { stripeCheckout } from "./support/webhooks.js"

/**
 * The README's walkthrough, run as written: its ```sh blocks are read as a shell reads
 * them (support/shell.ts), each `curl` is made as the request curl would make (to the
 * Worker in Miniflare instead of `wrangler dev` on localhost:8787), and each answer is
 * checked against the `# → …` line the README shows under it. The campaign's batches
 * travel through the real Miniflare Queue (producer, then consumer) and its emails
 * through the real `send_email` binding.
 */

const SECTION = "Walkthrough: the admin API and a campaign"
const readme = readFileSync(join(exampleDir, "README.md"), "utf8")
const blocks = shellBlocks(readme, SECTION)
const env: Record<string, string> = {}
const commands = parseCommands(blocks, env)
const curls = commands.filter((c) => c.words[0] === "curl")

/** `.dev.vars.example`, which the walkthrough copies to `.dev.vars`. */
const devVars = Object.fromEntries(
  readFileSync(join(exampleDir, ".dev.vars.example"), "utf8").split("\n")
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)])
)

/** What stands in, here, for each command that is neither `curl` nor `export`. */
const standIns = {
  // The Worker's secrets are .dev.vars.example's (its admin token among them).
  "cp .dev.vars.example .dev.vars": "the secrets of .dev.vars.example",
  // Production only.
  "npx wrangler secret put HOOKGATE_ADMIN_TOKEN": "nothing",
  // The Worker applies them itself (`migrate: true`); migrations.test.ts shows wrangler and it agree.
  "npx wrangler d1 migrations apply hookgate --local": "the Worker's own migration on its first request",
  "npx wrangler dev": "Miniflare with wrangler.jsonc's bindings and the bundle wrangler builds"
}

/** What each curl must be, in order, with what its answer's status is and what happens around it. */
interface Step {
  readonly request: string
  readonly status: number
  readonly before?: () => Promise<void>
  readonly after?: (command: ShellCommand) => Promise<void>
}

let example: Example
beforeAll(async () => {
  // wrangler.jsonc's 5 s batch timeout shortened: the walkthrough pauses well within it.
  example = await startExample({ adminToken: devVars["HOOKGATE_ADMIN_TOKEN"]!, maxBatchTimeout: 2 })
}, 120_000)
afterAll(() => example?.dispose())

/** Messages of `queue` Miniflare's broker saw acknowledged and delivered (`QUEUE <name> <acked>/<total>`). */
const queueCounts = (queue: string) =>
  example.log.lines.reduce((sum, line) => {
    const match = new RegExp(`QUEUE ${queue} (\\d+)/(\\d+)`).exec(line)
    return match ? { acked: sum.acked + Number(match[1]), delivered: sum.delivered + Number(match[2]) } : sum
  }, { acked: 0, delivered: 0 })

const send = async (request: CurlRequest) => {
  const response = await example.fetch("cloudflare", request.url, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body })
  })
  return { status: response.status, body: (await response.json()) as unknown }
}

const matches = (actual: unknown, expected: unknown) => {
  try {
    expect(actual).toMatchObject(expected as object)
    return true
  } catch {
    return false
  }
}

/** Runs a README curl; a GET (a "watch") is repeated until it answers what the README shows, for up to 15 s. */
const run = async (command: ShellCommand, status: number) => {
  const request = curlRequest(command.words)
  // Where `wrangler dev` listens: the Worker in Miniflare answers in its place.
  expect(new URL(request.url).origin).toBe("http://localhost:8787")
  expect(command.answer, `the README shows what ${command.source} answers`).toBeDefined()
  const expected = JSON.parse(command.answer!) as object
  let answer = await send(request)
  for (let i = 0; request.method === "GET" && i < 150 && !(answer.status === status && matches(answer.body, expected)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    answer = await send(request)
  }
  expect(answer.status, command.source).toBe(status)
  expect(answer.body, command.source).toMatchObject(expected)
  return request
}

const CAMPAIGN_QUEUE = "hookgate-campaigns"

const steps: ReadonlyArray<Step> = [
  { request: "GET /admin/stats", status: 401 },
  { request: "POST /admin/campaigns", status: 201 },
  { request: "POST /admin/campaigns/spring-sale/start", status: 200 },
  { request: "POST /admin/campaigns/spring-sale/pause", status: 200 },
  {
    request: "GET /admin/campaigns/spring-sale",
    status: 200,
    // The batch message arrives while paused: acknowledged, nothing sent; the status stays as shown.
    after: async (command) => {
      for (let i = 0; i < 150 && queueCounts(CAMPAIGN_QUEUE).acked < 1; i++) await new Promise((resolve) => setTimeout(resolve, 100))
      expect(queueCounts(CAMPAIGN_QUEUE)).toEqual({ acked: 1, delivered: 1 })
      await run(command, 200)
      expect(await example.log.emails()).toEqual([])
    }
  },
  { request: "POST /admin/campaigns/spring-sale/resume", status: 200 },
  { request: "GET /admin/campaigns/spring-sale", status: 200 },
  {
    request: "GET /admin/stats",
    status: 200,
    // "Once an order has come in": a signed Stripe checkout.
    before: async () => {
      expect((await example.post("cloudflare", await stripeCheckout("cs_test_walkthrough"))).body).toMatchObject({ status: "sent" })
    }
  },
  { request: "GET /admin/orders?limit=10", status: 200 },
  { request: "GET /admin/alerts", status: 200 }
]

describe("the README's walkthrough, run against the example Worker in Miniflare", () => {
  it("its setup commands are the ones this test stands in for, and its exports are .dev.vars's token and wrangler dev's address", () => {
    expect(commands.filter((c) => c.words[0] !== "curl" && c.words[0] !== "export").map((c) => c.words.join(" ")))
      .toEqual(Object.keys(standIns))
    expect(env).toEqual({ HOOKGATE_URL: "http://localhost:8787", HOOKGATE_ADMIN_TOKEN: devVars["HOOKGATE_ADMIN_TOKEN"] })
    expect(curls.map((c) => {
      const request = curlRequest(c.words)
      const url = new URL(request.url)
      return `${request.method} ${url.pathname}${url.search}`
    })).toEqual(steps.map((s) => s.request))
  })

  it("a real shell reads every command into the same words (curl, cp and npx replaced by functions that print them)", () => {
    const programs = [...new Set(commands.map((c) => c.words[0]!).filter((w) => w !== "export"))]
    expect(programs.sort()).toEqual(["cp", "curl", "npx"])
    // Each word ends with \037, each command with \036; a clean environment, `set -u` as the parser does.
    const shims = programs.map((p) => `${p}() { printf '%s\\037' ${p} "$@"; printf '\\036'; }`).join("\n")
    const output = execFileSync("sh", ["-c", `set -eu\n${shims}\n${blocks.join("\n")}`], { env: { PATH: process.env["PATH"] ?? "" }, encoding: "utf8" })
    const read = output.split("\u001e").filter((c) => c !== "").map((c) => c.split("\u001f").slice(0, -1))
    expect(read).toEqual(commands.filter((c) => c.words[0] !== "export").map((c) => c.words))
  })

  it("create, start, pause, watch, resume, watch: each answer as shown, one email per recipient through the queue and send_email", async () => {
    let create: CurlRequest | undefined
    for (const [i, step] of steps.entries()) {
      await step.before?.()
      const request = await run(curls[i]!, step.status)
      if (step.request === "POST /admin/campaigns") create = request
      await step.after?.(curls[i]!)
    }
    // The recipients the README created, each mailed once with its own name filled in.
    const { recipients, template } = JSON.parse(create!.body!) as {
      readonly template: { readonly from: string; readonly subject: string; readonly text: string }
      readonly recipients: ReadonlyArray<{ readonly email: string; readonly vars: { readonly name: string } }>
    }
    const fill = (text: string, name: string) => text.replaceAll("{{name}}", name)
    const emails = (await example.log.emails())
      .filter((e) => e.subject !== "Your order is ready")
      // The binding writes the sender as a mailbox, its display name quoted.
      .map((e) => ({ ...e, from: e.from.replaceAll("\"", "") }))
    expect([...emails].sort((a, b) => a.to.localeCompare(b.to))).toEqual(
      recipients.map((r) => ({ from: template.from, to: r.email, subject: fill(template.subject, r.vars.name), text: fill(template.text, r.vars.name) }))
        .sort((a, b) => a.to.localeCompare(b.to))
    )
    // Producer to consumer over the queue: the paused delivery and the resumed one, both acknowledged; no dead letters.
    expect(queueCounts(CAMPAIGN_QUEUE)).toEqual({ acked: 2, delivered: 2 })
    expect(queueCounts(`${CAMPAIGN_QUEUE}-dlq`)).toEqual({ acked: 0, delivered: 0 })
  }, 60_000)
})
