import { EventReceipt, Lease, OrderStore } from "@hookgate/core"
import { SendReceipt } from "@hookgate/core/mail"
import { SqliteStore } from "@hookgate/store-sqlite"
import { newOrder } from "@hookgate/testing"
import { Effect } from "effect"
import { execFileSync, spawnSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { ADMIN_TOKEN, baseEnv, startGateway, STRIPE_SECRET, tempDir } from "./support/gateway-process.js"
import { admin, deliver, signStripe, stripeBody } from "./support/webhooks.js"

/** docs/operations.md, each step tried: backup and restore, the growth figure, the container recipe, the systemd unit. */

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const DEPLOY = join(ROOT, "deploy")
const OPERATIONS = readFileSync(join(ROOT, "docs/operations.md"), "utf8")
const has = (command: string) => spawnSync("sh", ["-c", `command -v ${command}`]).status === 0

const orderKeys = (filename: string) =>
  Effect.runPromise(Effect.gen(function*() {
    const store = yield* OrderStore
    return (yield* store.list({ limit: 1000 })).filter((o) => o.status === "sent").map((o) => o.key).sort()
  }).pipe(Effect.provide(SqliteStore.layer({ filename }))))

describe("backups", () => {
  it.skipIf(!has("sqlite3"))("deploy/backup-sqlite.sh and VACUUM INTO copy a serving gateway's database; a gateway on the copy knows every order", async () => {
    const dir = tempDir()
    const env = baseEnv(dir)
    const gateway = await startGateway(env)
    const sent: Array<string> = []
    const backup = join(dir, "backup.db")
    const vacuumed = join(dir, "vacuumed.db")
    try {
      for (let i = 0; i < 20; i++) {
        const signed = await signStripe(stripeBody(`backup-${i}`))
        expect((await deliver(gateway.url, signed)).body.status).toBe("sent")
        sent.push(signed.orderKey)
      }
      // Taken while webhooks keep arriving.
      const more = Promise.all(Array.from({ length: 10 }, async (_, i) => deliver(gateway.url, await signStripe(stripeBody(`during-${i}`)))))
      const out = execFileSync(join(DEPLOY, "backup-sqlite.sh"), [env.HOOKGATE_DB!, backup], { encoding: "utf8" })
      expect(out).toMatch(/backed up .* \(\d+ orders\)/)
      execFileSync("sqlite3", [env.HOOKGATE_DB!, `VACUUM INTO '${vacuumed}'`])
      await more
    } finally {
      await gateway.stop()
    }
    // The documented commands are the ones run here.
    expect(OPERATIONS).toContain("deploy/backup-sqlite.sh /var/lib/hookgate/hookgate.db")
    expect(OPERATIONS).toContain("VACUUM INTO")

    for (const copy of [backup, vacuumed]) {
      const keys = await orderKeys(copy)
      for (const key of sent) expect(keys).toContain(key)
    }
    // Restore: the copy becomes the database of a new gateway, which knows its orders.
    const restoredDir = tempDir()
    const restoredEnv = baseEnv(restoredDir)
    copyFileSync(backup, restoredEnv.HOOKGATE_DB!)
    const restored = await startGateway(restoredEnv)
    try {
      const stats = await admin(restored.url, "/admin/stats", {}, ADMIN_TOKEN)
      expect(stats.body.orders.sent).toBeGreaterThanOrEqual(20)
      // A provider's retry of an order taken before the backup sends nothing again.
      expect((await deliver(restored.url, await signStripe(stripeBody("backup-3")))).body.status).toBe("duplicate")
    } finally {
      await restored.stop()
    }
  }, 180_000)
})

describe("growth", () => {
  it("a sent order with its receipt takes the bytes docs/operations.md says, on SQLite", async () => {
    const filename = join(tempDir(), "growth.db")
    const N = 2000
    await Effect.runPromise(Effect.gen(function*() {
      const store = yield* OrderStore
      const lease = yield* Lease
      const now = Date.now()
      for (let i = 0; i < N; i++) {
        const order = yield* newOrder(`growth-${i}-cs_live_a1b2c3d4e5f6g7h8i9j0`, `buyer-${i}@example.com`)
        const token = crypto.randomUUID()
        yield* store.put(order, { token, now: now + i, until: now + i + 300_000 })
        yield* store.recordReceipt(new EventReceipt({ provider: "test", eventId: `evt_${i}_1a2b3c4d5e6f7g8h`, eventType: "checkout.session.completed", orderKey: order.key, outcome: "duplicate", receivedAt: now + i }))
        yield* lease.complete(order.key, token, new SendReceipt({ mailer: "resend", messageId: crypto.randomUUID(), acceptedAt: now + i }), { mailerHonoursKeys: true, now: now + i })
      }
    }).pipe(Effect.provide(SqliteStore.layer({ filename }))))
    // Closed: the write-ahead log is checkpointed into the file.
    const bytes = statSync(filename).size + (existsSync(`${filename}-wal`) ? statSync(`${filename}-wal`).size : 0)
    const perOrder = bytes / N
    const documented = Number(/about ([\d.]+) KB per order/.exec(OPERATIONS)?.[1]) * 1000
    console.info(`SQLite: ${Math.round(perOrder)} bytes per sent order with one receipt`)
    expect(perOrder).toBeGreaterThan(documented * 0.7)
    expect(perOrder).toBeLessThan(documented * 1.3)
  }, 120_000)
})

/** The Dockerfile's lines: `ENV k=v`, `USER u`, `VOLUME [...]`, `EXPOSE p`, `CMD [...]`, `RUN …`. */
const dockerfile = () => {
  const lines = readFileSync(join(DEPLOY, "Dockerfile"), "utf8").replace(/\\\n/g, " ").split("\n").map((l) => l.trim())
  const final = lines.slice(lines.map((l) => l.startsWith("FROM ")).lastIndexOf(true))
  const values = (instruction: string, from = lines) =>
    from.filter((l) => l.startsWith(`${instruction} `)).map((l) => l.slice(instruction.length + 1).trim())
  return {
    build: values("RUN", lines.slice(0, lines.length - final.length)),
    env: Object.fromEntries(values("ENV", final).map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)])),
    user: values("USER", final)[0],
    volumes: values("VOLUME", final).flatMap((v) => JSON.parse(v) as Array<string>),
    expose: values("EXPOSE", final),
    cmd: JSON.parse(values("CMD", final)[0]!) as Array<string>
  }
}

describe("the container recipe (deploy/Dockerfile)", () => {
  it("builds with the repository's own commands, runs `hookgate serve` as a user that is not root, with the database on the volume", async () => {
    const image = dockerfile()
    expect(image.build).toEqual(["npm ci --no-audit --no-fund", "npx tsc -b", "npm prune --omit=dev --no-audit --no-fund"])
    expect(image.user).toBeDefined()
    expect(["root", "0"]).not.toContain(image.user)
    expect(image.volumes).toContain(dirname(image.env.HOOKGATE_DB!))
    expect(image.expose).toEqual([image.env.PORT])
    expect(image.cmd).toEqual(["node", "packages/node/bin/hookgate.js", "serve"])
    // A heap limit of its own: Node would size the heap from the host's memory (docs/operations.md).
    expect(image.env.NODE_OPTIONS).toMatch(/^--max-old-space-size=\d+$/)
    expect(OPERATIONS).toContain(`NODE_OPTIONS=${image.env.NODE_OPTIONS}`)

    // The image's start command, from the repository as the build stage leaves it (built),
    // with the image's settings; the volume is a folder of its own.
    const volume = tempDir()
    const env = {
      ...image.env,
      HOOKGATE_DB: join(volume, "hookgate.db"),
      HOOKGATE_OUTBOX: join(volume, "outbox"),
      HOST: "127.0.0.1",
      PORT: "0",
      STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
      HOOKGATE_ADMIN_TOKEN: ADMIN_TOKEN
    }
    mkdirSync(volume, { recursive: true })
    const gateway = await startGateway(env, { args: image.cmd.slice(2) })
    try {
      expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200)
      expect((await deliver(gateway.url, await signStripe(stripeBody("container")))).body.status).toBe("sent")
    } finally {
      expect(await gateway.stop()).toBe(0)
    }
    expect(existsSync(join(volume, "hookgate.db"))).toBe(true)
  }, 120_000)
})

describe("the systemd unit (deploy/hookgate.service)", () => {
  it.skipIf(!has("systemd-analyze"))("parses without a warning", () => {
    const result = spawnSync("systemd-analyze", ["verify", join(DEPLOY, "hookgate.service")], { encoding: "utf8" })
    const about = (result.stdout + result.stderr).split("\n").filter((l) => l.includes("hookgate.service"))
    expect(about).toEqual([])
    expect(result.status).toBe(0)
  })
})

describe("TLS behind a reverse proxy", () => {
  it("the Caddy site docs/operations.md shows is deploy/Caddyfile's", () => {
    const shown = /```\n(hooks\.example\.com \{[\s\S]*?\n\})\n```/.exec(OPERATIONS)?.[1]
    const file = readFileSync(join(DEPLOY, "Caddyfile"), "utf8").split("\n").filter((l) => !l.trim().startsWith("#")).join("\n")
    expect(shown).toBeDefined()
    expect(file).toContain(shown)
  })
})
