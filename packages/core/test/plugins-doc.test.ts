import { readFileSync } from "node:fs"
import { expect, it } from "vitest"

// docs/plugins.md shows the Acme plugin and its conformance test as whole files, byte
// for byte: the page cannot drift from the code that runs (here, and in the consumer
// test, which runs the page's blocks in an app built from the packed packages).
it("docs/plugins.md shows the Acme plugin and its test byte for byte", () => {
  const page = readFileSync(new URL("../../../docs/plugins.md", import.meta.url), "utf8")
  for (const file of ["acme-provider.ts", "acme-provider.test.ts"]) {
    const code = readFileSync(new URL(`./${file}`, import.meta.url), "utf8")
    expect(page).toContain("```ts\n// packages/core/test/" + file + "\n" + code + "```")
  }
})
