import { Args, Command, Options } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { RetryPolicy } from "@hookgate/core"
import { Alerter } from "@hookgate/core/alerts"
import { CampaignQueue, Campaigns, type CampaignStatus } from "@hookgate/core/campaigns"
import { Mailer, Rejected } from "@hookgate/core/mail"
import { Console, Effect, Layer } from "effect"
import { recipientsFromFile } from "../campaigns/recipients-file.js"
import { GatewayConfig } from "../config/gateway-config.js"
import { storeLayer } from "../store-layer.js"
import { table } from "./print.js"
import { announce } from "./target.js"

/**
 * The CLI changes a campaign's state in the database; the running gateway sends
 * it (its campaign watcher dispatches running campaigns whenever its queue is
 * idle). So the CLI's queue and mailer never send anything.
 */
const cliCampaigns = Layer.unwrapEffect(Effect.map(GatewayConfig, (config) =>
  Campaigns.layer().pipe(
    Layer.provide(Layer.mergeAll(
      Layer.succeed(CampaignQueue, { enqueue: () => Effect.void }),
      Layer.succeed(Mailer, {
        name: "cli",
        honoursIdempotencyKeys: false,
        send: () => Effect.fail(new Rejected({ mailer: "cli", detail: "the CLI does not send; the gateway does" }))
      }),
      Alerter.layerLog(),
      RetryPolicy.layer(config.retry)
    )),
    Layer.provide(storeLayer(config))
  )))

const withCampaigns = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(GatewayConfig, (config) => announce(config, "campaigns")).pipe(
    Effect.zipRight(effect),
    Effect.provide(cliCampaigns)
  )

const printStatus = (statuses: ReadonlyArray<CampaignStatus>) =>
  Console.log(
    statuses.length === 0
      ? "no campaigns"
      : table(
        ["campaign", "state", "total", "sent", "reserved", "failed", "remaining", "duplicates prevented"],
        statuses.map((s) => [s.id, s.state, ...[s.total, s.sent, s.reserved, s.failed, s.remaining, s.duplicatesPrevented].map(String)])
      )
  )

const id = Args.text({ name: "id" }).pipe(Args.withDescription("the campaign id (letters, digits, '.', '_', '-')"))

const create = Command.make(
  "create",
  {
    id,
    template: Options.file("template", { exists: "yes" }).pipe(
      Options.withDescription("a JSON file: { from, subject, text, html?, replyTo? } with {{name}} placeholders")
    ),
    recipients: Options.file("recipients", { exists: "yes" }).pipe(
      Options.withDescription("a .csv with an email column (other columns become {{vars}}), or one email or JSON object per line")
    ),
    replace: Options.boolean("replace").pipe(
      Options.withDescription("if the id names a draft (never started), replace its template and recipients; without it an id in use is refused")
    )
  },
  ({ id, recipients, replace, template }) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const templateJson = JSON.parse(yield* fs.readFileString(template))
      const status = yield* Effect.flatMap(Campaigns, (campaigns) =>
        campaigns.create({ id, template: templateJson, recipients: recipientsFromFile(recipients), replace }))
      yield* printStatus([status])
      yield* Console.log(
        `${replace ? `${id} is a draft with this template and these recipients` : `created ${id} as a draft`}: ` +
          `start it with \`hookgate campaigns start ${id}\``
      )
    }).pipe(withCampaigns)
).pipe(Command.withDescription("create a campaign from a template and a recipient file (streamed: any size)"))

const control = (name: "start" | "pause" | "resume", description: string, after: (id: string) => string) =>
  Command.make(name, { id }, ({ id }) =>
    Effect.gen(function*() {
      const status = yield* Effect.flatMap(Campaigns, (campaigns) => campaigns[name](id))
      yield* printStatus([status])
      yield* Console.log(after(id))
    }).pipe(withCampaigns)).pipe(Command.withDescription(description))

const status = Command.make("status", { id }, ({ id }) =>
  Effect.flatMap(Campaigns, (campaigns) => campaigns.status(id)).pipe(
    Effect.flatMap((s) => printStatus([s])),
    withCampaigns
  )).pipe(Command.withDescription("total, sent, reserved, failed, remaining and duplicates prevented"))

const list = Command.make("list", {}, () =>
  Effect.gen(function*() {
    const campaigns = yield* Campaigns
    const rows = yield* campaigns.list({ limit: 100 })
    yield* printStatus(yield* Effect.forEach(rows, (row) => campaigns.status(row.id)))
  }).pipe(withCampaigns)).pipe(Command.withDescription("every campaign with its status"))

export const campaignsCommand = Command.make("campaigns").pipe(
  Command.withDescription("bulk campaigns with a delivery ledger: one email per recipient"),
  Command.withSubcommands([
    create,
    control("start", "start a draft: the running gateway sends its batches (a campaign that started is refused)", (id) => `started ${id}: the gateway sends it`),
    control("pause", "stop leasing new batches (the batch in flight finishes); a paused campaign stays paused", (id) => `paused ${id}`),
    control("resume", "continue a paused campaign where it stopped (anything else is refused)", (id) => `resumed ${id}: the gateway continues it`),
    status,
    list
  ])
)
