import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** A tiny endpoint standing in for a Slack incoming webhook: records each POST, answers as scripted. */
export interface AlertHook {
  readonly url: string
  readonly received: ReadonlyArray<{
    readonly path: string
    readonly status: number
    readonly contentType: string | undefined
    readonly authorization: string | undefined
    readonly body: any
  }>
  readonly answerNext: (status: number, body: string) => void
  readonly delayNext: (millis: number) => void
  readonly reset: () => void
  readonly close: () => Promise<void>
}

export const startAlertHook = async (): Promise<AlertHook> => {
  const received: Array<AlertHook["received"][number]> = []
  const script: Array<{ status: number; body: string } | { delay: number }> = []
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const step = script.shift()
      const answer = step !== undefined && "status" in step ? step : { status: 200, body: "ok" }
      // Recorded on arrival, so a request answered late (or never) is still seen once.
      received.push({
        path: req.url ?? "",
        status: answer.status,
        contentType: req.headers["content-type"],
        authorization: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString() || "null")
      })
      const respond = () => {
        if (!res.destroyed) res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body)
      }
      if (step !== undefined && "delay" in step) setTimeout(respond, step.delay)
      else respond()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    get received() {
      return [...received]
    },
    answerNext: (status, body) => script.push({ status, body }),
    delayNext: (delay) => script.push({ delay }),
    reset: () => {
      received.length = 0
      script.length = 0
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
