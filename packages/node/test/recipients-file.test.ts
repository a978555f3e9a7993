import { NodeFileSystem } from "@effect/platform-node"
import { it } from "@effect/vitest"
import { Campaigns, CampaignTemplate } from "@hookgate/core/campaigns"
import { MemoryLedgers, MemoryStore, TestPipeline } from "@hookgate/testing"
import { Effect, Layer } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect } from "vitest"
import { recipientsFromFile } from "../src/campaigns/recipients-file.js"

/** A recipient file's refusals name the file's line: 1-based, every line counted (a CSV's header is line 1). */

const template = new CampaignTemplate({ from: "shop@example.com", subject: "Hi {{name}}", text: "Hello {{name}}" })
const layer = Campaigns.layerInProcess().pipe(
  Layer.provideMerge(MemoryLedgers.layer.pipe(Layer.provideMerge(TestPipeline.layer({ store: MemoryStore.layer, providers: [] })))),
  Layer.provideMerge(NodeFileSystem.layer)
)
const file = (name: string, text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), "hookgate-recipients-")), name)
  writeFileSync(path, text)
  return path
}
const create = (id: string, path: string) =>
  Effect.flatMap(Campaigns, (campaigns) => campaigns.create({ id, template, recipients: recipientsFromFile(path) }))

describe("recipient files", () => {
  it.effect("a CSV's invalid third row is refused as its line (header and blank lines counted), and nothing is kept", () =>
    Effect.gen(function*() {
      const path = file("list.csv", ["email,name", "ann@example.com,Ann", "", "bob@example.com,Bob", "carol@,Carol", "dan@example.com,Dan"].join("\n"))
      const refused = yield* Effect.flip(create("spring", path))
      expect(refused).toMatchObject({ _tag: "InvalidRecipient", line: 5, position: 2 })
      expect(refused.message).toBe(`campaign spring: line 5: "carol@" is not an email address`)
      expect(yield* Effect.flip(Effect.flatMap(Campaigns, (c) => c.status("spring")))).toMatchObject({ _tag: "CampaignNotFound" })
      // Fixed, the same file creates the campaign.
      writeFileSync(path, ["email,name", "ann@example.com,Ann", "", "bob@example.com,Bob", "carol@example.com,Carol"].join("\n"))
      expect(yield* create("spring", path)).toMatchObject({ state: "draft", total: 3 })
    }).pipe(Effect.provide(layer)))

  it.effect("a CSV whose header has no email column is refused at line 1; a plain list names its lines too", () =>
    Effect.gen(function*() {
      const noEmail = yield* Effect.flip(create("a", file("list.csv", "name,mail\nAnn,ann@example.com\n")))
      expect(noEmail.message).toMatch(/list\.csv: line 1: the header names no email column$/)
      const plain = yield* Effect.flip(create("b", file("list.txt", "ann@example.com\n{\"email\":\"bob@example.com\"}\n\nnope\n")))
      expect(plain).toMatchObject({ _tag: "InvalidRecipient", line: 4 })
    }).pipe(Effect.provide(layer)))
})
