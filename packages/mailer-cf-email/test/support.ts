import { build } from "esbuild"
import { Log, LogLevel, Miniflare } from "miniflare"
import { readFile } from "node:fs/promises"
import { fileURLToPath } from "node:url"
import { stripVTControlCharacters } from "node:util"
import PostalMime, { type Email } from "postal-mime"

export const SECRET = "whsec_cloudflare_pipeline"
/** The Email Routing binding delivers only to these (verified destinations). */
export const ALLOWED = ["buyer@example.com", "o1@example.com", "o2@example.com", "o3@example.com", "o4@example.com"]

/** Miniflare's log, kept: the `send_email` binding reports what it received there. */
class CapturingLog extends Log {
  readonly lines: Array<string> = []
  protected override log(message: string): void {
    this.lines.push(stripVTControlCharacters(message))
  }
}

/**
 * What the binding received, as Miniflare records it. Miniflare writes the raw
 * MIME of an `EmailMessage` to a temporary `.eml` file, and the text and html of
 * a structured message to `.txt` / `.html` files, and logs their paths (the
 * structured form's From, To and Subject are in the log line itself; its
 * replyTo and headers are not recorded, see the Worker's own record for those).
 */
export type Received =
  | { readonly form: "routing"; readonly email: Email; readonly raw: string }
  | {
    readonly form: "sending"
    readonly from: string
    readonly to: string
    readonly subject: string
    readonly text: string | undefined
    readonly html: string | undefined
  }

const RAW = /send_email binding called with the following message:\s+(\S+\.eml)/
const BUILDER = /send_email binding called with MessageBuilder:\n([\s\S]*)/

const field = (block: string, name: string) => new RegExp(`^${name}: (.*)$`, "m").exec(block)?.[1]

const readReceived = async (line: string): Promise<Received | undefined> => {
  const raw = RAW.exec(line)
  if (raw) {
    const text = await readFile(raw[1]!, "utf8")
    return { form: "routing", raw: text, email: await PostalMime.parse(text) }
  }
  const builder = BUILDER.exec(line)
  if (builder) {
    const block = builder[1]!
    const file = async (name: string) => {
      const path = field(block, name)
      return path === undefined ? undefined : await readFile(path, "utf8")
    }
    return {
      form: "sending",
      from: field(block, "From") ?? "",
      to: field(block, "To") ?? "",
      subject: field(block, "Subject") ?? "",
      text: await file("Text"),
      html: await file("HTML")
    }
  }
  return undefined
}

const workerSource = fileURLToPath(new URL("./worker/worker.ts", import.meta.url))

/** Bundles the test Worker (TypeScript sources through the `@hookgate/source` condition). */
const bundleWorker = async () => {
  const result = await build({
    entryPoints: [workerSource],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    conditions: ["@hookgate/source", "workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    external: ["cloudflare:*"],
    write: false,
    logLevel: "silent"
  })
  return result.outputFiles[0]!.text
}

export interface TestWorker {
  readonly fetch: (path: string, init?: RequestInit) => Promise<Response>
  readonly json: <A = any>(path: string, init?: RequestInit) => Promise<A>
  /** Everything the bindings received so far, in order (waits for `count` when given). */
  readonly received: (count?: number) => Promise<ReadonlyArray<Received>>
  readonly dispose: () => Promise<void>
}

export const startWorker = async (): Promise<TestWorker> => {
  const log = new CapturingLog(LogLevel.INFO)
  const mf = new Miniflare({
    // Modules listed explicitly: Miniflare's own module scan refuses the mailer's
    // `import(variable)` of cloudflare:email, which workerd itself resolves at run time.
    modules: [{ type: "ESModule", path: "worker.mjs", contents: await bundleWorker() }],
    compatibilityDate: "2026-04-01",
    bindings: { SECRET },
    email: {
      send_email: [{ name: "EMAIL" }, { name: "ROUTED", allowed_destination_addresses: ALLOWED }]
    },
    log
  })
  await mf.ready
  const fetchWorker = async (path: string, init?: RequestInit) =>
    (await mf.dispatchFetch(`http://worker${path}`, init as never)) as unknown as Response
  const sentLines = () => log.lines.filter((line) => line.includes("send_email binding called"))
  return {
    fetch: fetchWorker,
    json: async (path, init) => (await (await fetchWorker(path, init)).json()) as never,
    received: async (count) => {
      // The binding logs through waitUntil, so its line may trail the Worker's answer.
      for (let i = 0; count !== undefined && sentLines().length < count && i < 500; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      const all = await Promise.all(sentLines().map(readReceived))
      return all.filter((r): r is Received => r !== undefined)
    },
    dispose: () => mf.dispose()
  }
}
