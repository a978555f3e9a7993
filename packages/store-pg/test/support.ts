import { PgStore } from "@hookgate/store-pg"
import { PgTestServer } from "@hookgate/store-pg/testing"
import { afterAll, beforeAll } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"

/**
 * One throwaway PostgreSQL server for the test file (started before its tests,
 * stopped and removed after them, even when they fail), and a store layer that
 * gets a fresh database of its own each time it is built.
 */
export const usePgServer = () => {
  let server: PgTestServer | undefined
  beforeAll(async () => {
    server = await PgTestServer.start()
  })
  afterAll(() => server?.dispose())
  const current = () => {
    if (server === undefined) throw new Error("the Postgres test server has not started")
    return server
  }
  const freshStore = () =>
    Layer.unwrapEffect(
      Effect.map(Effect.promise(() => current().createDatabase()), (url) =>
        PgStore.layer({ url: Redacted.make(url), maxConnections: 4 }))
    )
  return { server: current, freshStore }
}
