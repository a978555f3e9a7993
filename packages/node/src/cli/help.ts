/**
 * The command's help, written for a reader (as npm's and wrangler's are): the
 * commands first, then the few options every command takes, then examples,
 * in 80 columns. `@effect/cli` still parses every command line; this text
 * replaces its generated help, which lists its built-in flags first.
 */

export const VERSION = "0.1.0"

interface CommandHelp {
  /** The words after `hookgate`, e.g. `orders list`. */
  readonly path: string
  readonly usage: string
  readonly summary: string
  readonly options?: ReadonlyArray<readonly [string, string]>
  readonly examples?: ReadonlyArray<string>
}

export const COMMANDS: ReadonlyArray<CommandHelp> = [
  {
    path: "serve",
    usage: "serve [--dev]",
    summary: "run the HTTP gateway, with the retry sweep in the same process",
    options: [["--dev", "development secrets, HOST=127.0.0.1 and a random admin token where none are set (what npm start runs)"]],
    examples: ["hookgate serve", "hookgate serve --config /etc/hookgate.env"]
  },
  {
    path: "sweep",
    usage: "sweep [--url <url>] [--local]",
    summary: "ask the running gateway to run one retry sweep now",
    options: [
      ["--url <url>", "the running gateway (default HOOKGATE_URL, else http://HOST:PORT)"],
      ["--local", "sweep in this process through this shell's mailer instead"]
    ],
    examples: ["HOOKGATE_ADMIN_TOKEN=... hookgate sweep"]
  },
  {
    path: "reconcile",
    usage: "reconcile [--since <duration>] [--dry-run]",
    summary: "pull paid orders from the providers' APIs and send those no webhook brought (Creem's: name them to the owner)",
    options: [
      ["--since <duration>", "look back this far (e.g. 72h) instead of from each provider's cursor"],
      ["--dry-run", "count what would be stored and sent; store and send nothing"]
    ],
    examples: ["STRIPE_API_KEY=rk_live_... hookgate reconcile --since 72h", "CREEM_API_KEY=creem_... hookgate reconcile --dry-run"]
  },
  { path: "stats", usage: "stats", summary: "orders by status, due orders, undelivered alerts, duplicates prevented" },
  {
    path: "prune",
    usage: "prune --older-than <duration> [--dry-run]",
    summary: "delete finished orders and receipts older than a cutoff",
    options: [
      ["--older-than <duration>", "the cutoff's age, at least 30d (e.g. 180d)"],
      ["--dry-run", "count what would be deleted; delete nothing"]
    ],
    examples: ["hookgate prune --older-than 180d --dry-run", "hookgate prune --older-than 180d"]
  },
  {
    path: "orders list",
    usage: "orders list [--status <status>] [--limit <n>]",
    summary: "list orders, newest first",
    options: [["--status <status>", "pending, sent, failed or capped"], ["--limit <n>", "at most n orders (default 50)"]],
    examples: ["hookgate orders list --status capped"]
  },
  { path: "orders show", usage: "orders show <key>", summary: "an order and every event received for it (JSON)" },
  {
    path: "orders retry",
    usage: "orders retry <key> --confirm",
    summary: "put a capped or failed order back in the queue",
    options: [["--confirm", "really requeue it (without it, only print its attempts)"]]
  },
  {
    path: "orders unfulfillable",
    usage: "orders unfulfillable [--limit <n>]",
    summary: "verified paid events that made no order, with why",
    options: [["--limit <n>", "at most n events (default 50)"]]
  },
  {
    path: "alerts list",
    usage: "alerts list [--limit <n>]",
    summary: "stored owner alerts and their delivery",
    options: [["--limit <n>", "at most n alerts (default 50)"]]
  },
  {
    path: "campaigns create",
    usage: "campaigns create <id> --template <file> --recipients <file> [--replace]",
    summary: "a campaign as a draft",
    options: [
      ["--template <file>", "JSON: { from, subject, text, html?, replyTo? } with {{name}} placeholders"],
      ["--recipients <file>", "a .csv with an email column, or one email or JSON object per line"],
      ["--replace", "replace a draft's template and recipients"]
    ]
  },
  { path: "campaigns start", usage: "campaigns start <id>", summary: "start a draft campaign (the gateway sends)" },
  { path: "campaigns pause", usage: "campaigns pause <id>", summary: "pause a running campaign" },
  { path: "campaigns resume", usage: "campaigns resume <id>", summary: "resume a paused campaign" },
  { path: "campaigns status", usage: "campaigns status <id>", summary: "a campaign's counts" },
  { path: "campaigns list", usage: "campaigns list", summary: "every campaign and its counts" },
  {
    path: "send-test",
    usage: "send-test <stripe|creem|lemonsqueezy|polar|paddle> [--replays <n>] [--concurrency <n>] [--url <url>] [--customer <ctm_id>]",
    summary: "post a signed paying event to a running gateway",
    options: [
      ["--replays <n>", "send the same event n more times (default 0)"],
      ["--concurrency <n>", "requests in flight at once (default 1)"],
      ["--url <url>", "the gateway (default HOOKGATE_URL, else http://HOST:PORT)"],
      ["--email <address>", "the buyer's address (default buyer@example.com; not paddle's)"],
      ["--customer <ctm_id>", "paddle: a customer of your Paddle account (the gateway fetches its email)"]
    ],
    examples: [
      "STRIPE_WEBHOOK_SECRET=whsec_... hookgate send-test stripe --replays 3",
      "PADDLE_WEBHOOK_SECRET=pdl_... hookgate send-test paddle --customer ctm_..."
    ]
  },
  {
    path: "config check",
    usage: "config check [--dev]",
    summary: "validate the settings and print the effective values",
    options: [["--dev", "the settings serve --dev (npm start) runs with"]]
  },
  { path: "demo", usage: "demo", summary: "a gateway on a temporary database, through a burst of webhooks" }
]

const GLOBAL_OPTIONS: ReadonlyArray<readonly [string, string]> = [
  ["--config <path>", "a settings file (.json or dotenv) under the environment"],
  ["-h, --help", "this help, or a command's: hookgate <command> --help"],
  ["-v, --version", "the version"]
]

const WIDTH = 80

/** Words (or `tokens` of text) wrapped to `width`, every line after the first indented by `indent`. */
const wrap = (text: string, indent: number, width = WIDTH, tokens: ReadonlyArray<string> = text.split(/\s+/)): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of tokens) {
    if (line !== "" && indent + line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line === "" ? word : `${line} ${word}`
  }
  lines.push(line)
  return lines
}

/** Two columns: a left cell padded to `column`, the right one wrapped beside it. */
const rows = (entries: ReadonlyArray<readonly [string, string]>, column: number) =>
  entries.flatMap(([left, right]) => {
    const cell = `  ${left}`
    const body = wrap(right, column)
    return cell.length + 2 > column
      ? [cell, ...body.map((b) => `${" ".repeat(column)}${b}`)]
      : body.map((b, i) => `${i === 0 ? cell.padEnd(column) : " ".repeat(column)}${b}`)
  })

/** A usage line in 80 columns, `[--option <value>]` groups kept whole, continued under the command. */
const usageLines = (usage: string) =>
  wrap(usage, 7, WIDTH, usage.match(/\[[^\]]*\]|\S+/g) ?? []).map((line, i) => (i === 0 ? line : `       ${line}`))

export const mainHelp = (): string =>
  [
    `hookgate ${VERSION}: payment webhooks into emails that go out once`,
    "",
    "Usage: hookgate <command> [options]",
    "",
    "Commands:",
    ...rows(COMMANDS.map((c) => [c.path, c.summary] as const), 26),
    "",
    "Options (every command):",
    ...rows(GLOBAL_OPTIONS, 26),
    "",
    "Settings come from the environment, then --config; `hookgate config check`",
    "prints them. Every command's first line (stderr) names its database and mailer.",
    "",
    "Examples:",
    "  npm start                              the gateway with development settings",
    "  hookgate config check --config prod.env",
    "  hookgate orders list --status capped",
    "  hookgate <command> --help              a command's options"
  ].join("\n")

/** The help of the command `words` name (`["orders", "list"]`), or of the group (`["orders"]`); undefined when none. */
export const commandHelp = (words: ReadonlyArray<string>): string | undefined => {
  const path = words.join(" ")
  const exact = COMMANDS.find((c) => c.path === path)
  if (exact !== undefined) {
    return [
      ...usageLines(`Usage: hookgate ${exact.usage} [--config <path>]`),
      "",
      ...wrap(exact.summary, 0),
      ...(exact.options === undefined ? [] : ["", "Options:", ...rows(exact.options, 24)]),
      ...(exact.examples === undefined ? [] : ["", "Examples:", ...exact.examples.map((e) => `  ${e}`)])
    ].join("\n")
  }
  const group = COMMANDS.filter((c) => c.path.startsWith(`${path} `))
  if (path === "" || group.length === 0) return undefined
  return [
    `Usage: hookgate ${path} <command> [options]`,
    "",
    "Commands:",
    ...rows(group.map((c) => [c.usage, c.summary] as const), 40)
  ].join("\n")
}

/**
 * What the arguments ask of the help: the text to print (exit 0), or nothing when they
 * are a command to run. `help`, `--help`, `-h` anywhere, `-v`, `--version`, or no command.
 */
export const helpRequest = (args: ReadonlyArray<string>): string | undefined => {
  if (args.length === 0) return mainHelp()
  if (args.length === 1 && (args[0] === "-v" || args[0] === "--version")) return VERSION
  const asksHelp = args[0] === "help" || args.includes("--help") || args.includes("-h")
  if (!asksHelp) return undefined
  const words = (args[0] === "help" ? args.slice(1) : args).filter((a) => !a.startsWith("-"))
  // The command's own words only: `orders show <key> --help` is the help of `orders show`.
  for (let n = Math.min(2, words.length); n > 0; n--) {
    const text = commandHelp(words.slice(0, n))
    if (text !== undefined) return text
  }
  return mainHelp()
}
