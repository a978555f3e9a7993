import { describe, expect, it } from "vitest"
import { curlRequest, parseCommands, shellBlocks } from "./support/shell.js"

/** The walkthrough test's reading of README commands: what it accepts means what sh and curl make of it; the rest is refused. */
describe("support/shell: README commands as sh and curl read them", () => {
  it("reads quotes, expansions, continuations and answer comments", () => {
    const env: Record<string, string> = {}
    const commands = parseCommands([
      "export URL=http://localhost:8787 TOKEN='a b'\n" +
      "curl -s -X POST \"$URL/x?y=1\" \\\n  -H \"Authorization: Bearer ${TOKEN}\" \\\n  -d '{\n  \"n\": \"$URL\"\n}'\n" +
      "# → {\"ok\":true}\n" +
      "curl \"$URL/x\" # a comment\n"
    ], env)
    expect(env).toEqual({ URL: "http://localhost:8787", TOKEN: "a b" })
    expect(commands.map((c) => c.answer)).toEqual([undefined, "{\"ok\":true}", undefined])
    expect(curlRequest(commands[1]!.words)).toEqual({
      method: "POST",
      url: "http://localhost:8787/x?y=1",
      headers: { authorization: "Bearer a b", "content-type": "application/x-www-form-urlencoded" },
      body: "{\n  \"n\": \"$URL\"\n}"
    })
    expect(curlRequest(commands[2]!.words)).toEqual({ method: "GET", url: "http://localhost:8787/x", headers: {}, body: undefined })
  })

  it("refuses what it cannot read exactly", () => {
    expect(() => parseCommands(["curl \"$UNSET/x\""])).toThrow("$UNSET is not set")
    expect(() => parseCommands(["curl a && curl b"])).toThrow("unsupported shell syntax")
    expect(() => parseCommands(["curl a | jq ."])).toThrow("unsupported shell syntax")
    expect(() => parseCommands(["curl $(cat url)"])).toThrow("unsupported $ expansion")
    expect(() => parseCommands(["curl 'a"])).toThrow("unterminated")
    expect(() => curlRequest(["curl", "--json", "{}", "http://x"])).toThrow("--json is not supported")
    expect(() => curlRequest(["curl", "-d", "@body.json", "http://x"])).toThrow("from a file")
    expect(() => curlRequest(["curl", "http://x", "http://y"])).toThrow("a second URL")
  })

  it("takes the sh blocks of one section only", () => {
    const markdown = "# t\n\n## A\n\n```sh\ncurl a\n```\n\n```ts\nx\n```\n\n## B\n\n```sh\ncurl b\n```\n"
    expect(shellBlocks(markdown, "A")).toEqual(["curl a\n"])
    expect(() => shellBlocks(markdown, "C")).toThrow("no section")
  })
})
