import { connect } from "node:net"
import { describe, expect, it } from "vitest"
import { baseEnv, startGateway, tempDir } from "./support/gateway-process.js"

/**
 * A client that declares a body and stops sending, or never finishes its headers,
 * holds a connection only as long as the settings allow (a provider sends a
 * webhook in well under a second), not Node's five minutes.
 */

/** Opens a raw connection, writes `data`, and answers when the server closes it: how long it took and what it said. */
const stall = (url: string, data: string) =>
  new Promise<{ ms: number; answer: string }>((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const startedAt = Date.now()
    let answer = ""
    const socket = connect(Number(port), hostname, () => socket.write(data))
    socket.on("data", (chunk) => (answer += chunk.toString()))
    socket.on("error", () => undefined)
    socket.on("close", () => resolve({ ms: Date.now() - startedAt, answer }))
    setTimeout(() => {
      socket.destroy()
      reject(new Error("the server held the stalled connection for 60 s"))
    }, 60_000).unref()
  })

describe("stalled requests", () => {
  it("a body that stops short of its Content-Length is cut at HOOKGATE_REQUEST_TIMEOUT with 408; stalled headers at HOOKGATE_HEADERS_TIMEOUT", async () => {
    const gateway = await startGateway({
      ...baseEnv(tempDir()),
      HOOKGATE_SWEEP_EVERY: "1 hour",
      HOOKGATE_HEADERS_TIMEOUT: "1s",
      HOOKGATE_REQUEST_TIMEOUT: "2s"
    })
    try {
      const [body, headers] = await Promise.all([
        stall(gateway.url, "POST /webhooks/stripe HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"id\":"),
        stall(gateway.url, "POST /webhooks/stripe HTTP/1.1\r\nHost: x\r\nContent-Le")
      ])
      expect(body.answer).toMatch(/^HTTP\/1\.1 408/)
      expect(body.ms).toBeGreaterThanOrEqual(1900)
      expect(body.ms).toBeLessThan(6000)
      expect(headers.answer).toMatch(/^HTTP\/1\.1 408/)
      expect(headers.ms).toBeGreaterThanOrEqual(900)
      expect(headers.ms).toBeLessThan(5000)
      // The gateway still serves.
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200)
    } finally {
      await gateway.stop()
    }
  }, 60_000)

  it("the timeouts default to seconds, and a headers timeout above the request timeout is refused", async () => {
    const { runCli } = await import("./support/gateway-process.js")
    const dir = tempDir()
    const env = { ...baseEnv(dir) }
    const check = await runCli(env, ["config", "check"])
    expect(check.stdout).toMatch(/^HOOKGATE_HEADERS_TIMEOUT\s+10s$/m)
    expect(check.stdout).toMatch(/^HOOKGATE_REQUEST_TIMEOUT\s+30s$/m)
    const refused = await runCli({ ...env, HOOKGATE_HEADERS_TIMEOUT: "1m", HOOKGATE_REQUEST_TIMEOUT: "30s" }, ["config", "check"])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("HOOKGATE_HEADERS_TIMEOUT: must not exceed HOOKGATE_REQUEST_TIMEOUT (30s)")
  }, 60_000)
})
