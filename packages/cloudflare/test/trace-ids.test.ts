import { afterEach, describe, expect, it, vi } from "vitest"
import { env, executionContext, harness, webhook } from "./support.js"

/** On Workers, every log line of a webhook carries a trace id: the caller's W3C trace id, or a fresh one. */

const lines: Array<string> = []
afterEach(() => {
  vi.restoreAllMocks()
  lines.length = 0
})
const capture = () => vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)))
const webhookLines = () =>
  lines.map((line) => JSON.parse(line) as { message: string; annotations: Record<string, unknown> }).filter((l) => l.message === "webhook")

describe("trace ids in a Worker's log lines", () => {
  it("a webhook's line carries the traceparent's trace id when the caller sent one", async () => {
    const { worker } = harness({ logs: true })
    capture()
    const request = await webhook("t1")
    const traced = new Request(request, { headers: { ...Object.fromEntries(request.headers), traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" } })
    expect((await worker.fetch(traced, env, executionContext().ctx)).status).toBe(200)
    expect(webhookLines().map((l) => l.annotations["traceId"])).toEqual(["4bf92f3577b34da6a3ce929d0e0e4736"])
  })

  it("otherwise a fresh one per request", async () => {
    const { worker } = harness({ logs: true })
    capture()
    for (const id of ["t2", "t3"]) expect((await worker.fetch(await webhook(id), env, executionContext().ctx)).status).toBe(200)
    const ids = webhookLines().map((l) => String(l.annotations["traceId"]))
    expect(ids).toHaveLength(2)
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/)
    expect(ids[0]).not.toBe(ids[1])
  })
})
