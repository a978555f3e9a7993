import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as http from "node:http"
import { ResendTestServer, type ResendTestServerShape, startResendTestServer } from "../src/testing/index.js"

let server: ResendTestServerShape
beforeAll(async () => {
  server = await startResendTestServer({ apiKey: "re_server_key", verifiedDomains: ["example.com"] })
})
afterAll(() => server.close())
beforeEach(() => server.reset())

/** node:http sends no User-Agent unless told to, unlike fetch. */
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const request = http.request(`${server.url}${path}`, { method: "POST", headers }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString() }))
    })
    request.on("error", reject)
    request.end(typeof body === "string" ? body : JSON.stringify(body))
  })

const authorised = { "user-agent": "test/1.0", authorization: "Bearer re_server_key", "content-type": "application/json" }
const valid = { from: "shop@example.com", to: "buyer@example.com", subject: "Hi", text: "Hello" }

describe("Resend test server", () => {
  it("refuses a request without a User-Agent with 403, as Cloudflare in front of Resend does", async () => {
    const answer = await post("/emails", valid, { authorization: "Bearer re_server_key" })
    expect(answer).toMatchObject({ status: 403, body: "error code: 1010" })
  })

  it("answers Resend's error body for a missing or wrong key", async () => {
    const missing = await post("/emails", valid, { "user-agent": "test/1.0" })
    expect(missing.status).toBe(401)
    expect(JSON.parse(missing.body)).toMatchObject({ statusCode: 401, name: "missing_api_key" })
    const wrong = await post("/emails", valid, { ...authorised, authorization: "Bearer re_other" })
    expect(JSON.parse(wrong.body)).toMatchObject({ statusCode: 403, name: "invalid_api_key", message: "API key is invalid" })
    expect(server.emails).toHaveLength(0)
  })

  it("validates as Resend does: idempotency key length, sender, verified domain, batch size", async () => {
    const cases: Array<[string, unknown, Record<string, string>, number, string]> = [
      ["/emails", valid, { "idempotency-key": "x".repeat(257) }, 400, "invalid_idempotency_key"],
      ["/emails", { ...valid, from: "nobody" }, {}, 422, "invalid_from_address"],
      ["/emails", { ...valid, from: "shop@unverified.test" }, {}, 403, "validation_error"],
      ["/emails", { ...valid, subject: undefined }, {}, 422, "missing_required_field"],
      ["/emails/batch", [], {}, 422, "validation_error"],
      ["/emails/batch", Array.from({ length: 101 }, () => valid), {}, 422, "validation_error"],
      ["/emails/batch", [{ ...valid, scheduled_at: "in 1 min" }], {}, 422, "validation_error"],
      ["/domains", valid, {}, 404, "not_found"]
    ]
    for (const [path, body, headers, status, name] of cases) {
      const answer = await post(path, body, { ...authorised, ...headers })
      expect([path, answer.status, JSON.parse(answer.body).name]).toEqual([path, status, name])
    }
    expect(server.emails).toHaveLength(0)
  })

  it("keeps the first answer under a key and refuses the key with another payload", async () => {
    const headers = { ...authorised, "idempotency-key": "k1" }
    const first = await post("/emails", valid, headers)
    // The same payload, serialised with its keys in another order, is the same request.
    const reordered = await post("/emails", JSON.stringify({ text: "Hello", subject: "Hi", to: "buyer@example.com", from: "shop@example.com" }), headers)
    expect(reordered.body).toBe(first.body)
    const other = await post("/emails", { ...valid, subject: "Other" }, headers)
    expect(other.status).toBe(409)
    expect(JSON.parse(other.body).name).toBe("invalid_idempotent_request")
    expect(server.emails).toHaveLength(1)
    expect(server.requests.map((r) => [r.status, r.replayed])).toEqual([[200, false], [200, true], [409, false]])
  })

  it("does not cache a scripted failure: the retry under the same key is handled afresh", async () => {
    server.failNext(1, { status: 500, name: "internal_server_error", message: "boom", retryAfterSeconds: 2 })
    const headers = { ...authorised, "idempotency-key": "k2" }
    const failed = await post("/emails", valid, headers)
    expect(failed.status).toBe(500)
    expect(failed.headers["retry-after"]).toBe("2")
    expect((await post("/emails", valid, headers)).status).toBe(200)
    expect(server.emails).toHaveLength(1)
  })

  it("rate limits with ratelimit-* and retry-after headers", async () => {
    const limited = await startResendTestServer({ rateLimit: { requests: 2, windowMillis: 1000 } })
    try {
      const headers = { ...authorised, authorization: `Bearer ${limited.apiKey}` }
      const answers = []
      for (let i = 0; i < 3; i++) {
        answers.push(await fetch(`${limited.url}/emails`, { method: "POST", headers, body: JSON.stringify(valid) }))
      }
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429])
      expect(answers[0]!.headers.get("ratelimit-limit")).toBe("2")
      expect(answers[1]!.headers.get("ratelimit-remaining")).toBe("0")
      expect(answers[2]!.headers.get("retry-after")).toBe("1")
      expect(await answers[2]!.json()).toMatchObject({ statusCode: 429, name: "rate_limit_exceeded" })
    } finally {
      await limited.close()
    }
  })

  it.live("is a scoped resource in Effect: closed with its scope", () =>
    Effect.gen(function*() {
      const url = yield* Effect.scoped(
        Effect.gen(function*() {
          const scoped = yield* ResendTestServer.scoped()
          const answer = yield* Effect.promise(() =>
            fetch(`${scoped.url}/emails`, {
              method: "POST",
              headers: { authorization: `Bearer ${scoped.apiKey}`, "user-agent": "t" },
              body: JSON.stringify(valid)
            })
          )
          expect(answer.status).toBe(200)
          expect(scoped.emails).toHaveLength(1)
          return scoped.url
        })
      )
      const after = yield* Effect.either(Effect.tryPromise(() => fetch(`${url}/emails`, { method: "POST" })))
      expect(after._tag).toBe("Left")
    }))

  it.live("as a layer, it serves for the layer's lifetime", () =>
    Effect.gen(function*() {
      const scoped = yield* ResendTestServer
      expect(scoped.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    }).pipe(Effect.provide(ResendTestServer.layer())))
})
