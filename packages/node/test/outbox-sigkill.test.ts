import { spawn } from "node:child_process"
import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { tempDir } from "./support/gateway-process.js"

const WRITER = fileURLToPath(new URL("./fixtures/outbox-writer.mjs", import.meta.url))

describe("outbox writes are atomic", () => {
  it("SIGKILL during outbox writes never leaves an empty or partial .eml", async () => {
    const dir = tempDir()
    let complete = 0
    for (let round = 0; round < 5; round++) {
      const child = spawn(process.execPath, [WRITER, dir], { stdio: ["ignore", "pipe", "inherit"] })
      await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()))
      await new Promise((resolve) => setTimeout(resolve, 50 + round * 37))
      child.kill("SIGKILL")
      await new Promise((resolve) => child.on("exit", resolve))
      const emls = readdirSync(dir).filter((f) => f.endsWith(".eml"))
      const sizes = new Set(emls.map((f) => statSync(join(dir, f)).size))
      // Every .eml is whole: the same body, so the same size (only the subject's digits differ by a byte or two).
      expect(Math.min(...sizes), `round ${round}`).toBeGreaterThan(4_000_000)
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThan(16)
      complete = emls.length
    }
    expect(complete).toBeGreaterThan(0)
  }, 120_000)
})
