import * as Statement from "@effect/sql/Statement"
import { describe, expect, it } from "@effect/vitest"
import { RetryPolicy } from "@hookgate/core"
import { CampaignInProcessQueue, Campaigns } from "@hookgate/core/campaigns"
import {
  campaignBehaviours,
  campaignStoreConformance,
  messageLedgerConformance,
  recipients,
  TEMPLATE
} from "@hookgate/testing/conformance"
import { RecordingAlerter, ScriptedMailer } from "@hookgate/testing"
import { SqliteStore } from "@hookgate/store-sqlite"
import { Effect, Layer, Logger, LogLevel, Stream } from "effect"

const sqlite = () => SqliteStore.layer({ filename: ":memory:" })

messageLedgerConformance("SQLite", sqlite)
campaignStoreConformance("SQLite", sqlite)
campaignBehaviours("SQLite", sqlite)

describe("the campaign ledger within D1's 100-parameter limit, on SQLite", () => {
  it.live("a 1,050-recipient campaign: no statement binds over 100 parameters; a batch of 100 is reserved and recorded in one statement each", () =>
    Effect.gen(function*() {
      const compiled: Array<{ readonly sql: string; readonly params: number }> = []
      const trace = Statement.setTransformer((statement) =>
        Effect.sync(() => {
          const [sql, params] = statement.compile()
          compiled.push({ sql, params: params.length })
          return statement
        }))
      yield* Effect.gen(function*() {
        const campaigns = yield* Campaigns
        yield* campaigns.create({ id: "wide", template: TEMPLATE, recipients: Stream.fromIterable(recipients(1_050)) })
        yield* campaigns.start("wide")
        yield* Effect.flatMap(CampaignInProcessQueue, (q) => q.idle)
        expect((yield* campaigns.status("wide")).sent).toBe(1_050)
      }).pipe(
        Effect.provide(
          Campaigns.layerInProcess().pipe(
            Layer.provideMerge(Layer.mergeAll(
              sqlite(),
              ScriptedMailer.layer({ batch: true }),
              RecordingAlerter.layer(),
              RetryPolicy.layer(),
              Logger.minimumLogLevel(LogLevel.Error)
            )),
            Layer.provide(trace)
          )
        )
      )
      const widest = compiled.reduce((a, b) => (b.params > a.params ? b : a))
      expect(widest.params, widest.sql).toBeLessThanOrEqual(100)
      const reserves = compiled.filter((c) => c.sql.startsWith("UPDATE hookgate_campaign_recipients SET\n  status = 'reserved'"))
      const records = compiled.filter((c) => c.sql.includes("UPDATE hookgate_campaign_recipients SET status = 'sent'"))
      expect(reserves).toHaveLength(11)
      expect(records).toHaveLength(11)
      expect(Math.max(...[...reserves, ...records].map((c) => c.params))).toBeLessThanOrEqual(12)
    }))
})
