import { readFileSync } from "node:fs"
import { expect, it } from "vitest"

// docs/plugins.md walks through this plugin as its worked example, showing each source file
// whole, byte for byte: the page cannot drift from the code these tests run (and the consumer
// test runs the page's copy through providerConformance in an app built from the packed packages).
it("docs/plugins.md shows the plugin's four files byte for byte", () => {
  const page = readFileSync(new URL("../../../docs/plugins.md", import.meta.url), "utf8")
  for (const file of ["signature.ts", "events.ts", "fulfilment.ts", "LemonSqueezy.ts"]) {
    const code = readFileSync(new URL(`../src/${file}`, import.meta.url), "utf8")
    expect(page).toContain("```ts\n// packages/provider-lemonsqueezy/src/" + file + "\n" + code + "```")
  }
})
