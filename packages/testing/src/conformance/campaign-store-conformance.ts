import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { type BatchMember, campaignStatus, CampaignStore, CampaignTemplate, createCampaign, type MemberResult, type Recipient } from "@hookgate/core/campaigns"
import { Alert, AlertStore } from "@hookgate/core/alerts"
import type { LedgerServices } from "./ledger-services.js"

export const TEMPLATE = new CampaignTemplate({
  from: "Shop <news@shop.example>",
  subject: "Hello {{name}}",
  text: "Dear {{name}}, this is for {{email}}."
})

/** `count` recipients `<prefix><i>@example.com` with a name each. */
export const recipients = (count: number, prefix = "r"): ReadonlyArray<Recipient> =>
  Array.from({ length: count }, (_, i) => ({ email: `${prefix}${i}@example.com`, vars: { name: `Reader ${i}` } }))

/** Creates a campaign and moves it to running without dispatching anything. */
export const runningCampaign = (id: string, list: ReadonlyArray<Recipient | string>) =>
  Effect.gen(function*() {
    const store = yield* CampaignStore
    yield* createCampaign({ id, template: TEMPLATE, recipients: Stream.fromIterable(list) })
    yield* store.transition(id, { from: ["draft"], to: "running", now: 0 })
  })

const T0 = 1_700_000_000_000
const LEASE = 60_000

/**
 * The campaign ledger's contract, for every store: one row per (campaign,
 * recipient), batches whose membership is fixed when reserved, leased like
 * orders. Each test gets a fresh store from `makeLayer`.
 */
export const campaignStoreConformance = (name: string, makeLayer: () => Layer.Layer<LedgerServices, unknown>) =>
  describe(`campaign ledger conformance: ${name}`, () => {
    const test = (title: string, body: Effect.Effect<void, unknown, LedgerServices>) =>
      it.effect(title, () => Effect.provide(body, makeLayer()))
    const reserve = (id: string, batch: number, now: number, token = `t-${batch}-${now}`) =>
      Effect.flatMap(CampaignStore, (s) => s.reserve(id, batch, { size: 100, token, now, until: now + LEASE }))
    const leased = (id: string, batch: number, now: number, token = `t-${batch}-${now}`) =>
      Effect.flatMap(reserve(id, batch, now, token), (r) =>
        r._tag === "Leased" ? Effect.succeed(r.members) : Effect.dieMessage(`expected Leased, got ${r._tag}`))
    const sentAll = (members: ReadonlyArray<BatchMember>): ReadonlyArray<MemberResult> =>
      members.map((m) => ({ seq: m.seq, outcome: "sent", messageId: `msg-${m.seq}` }))

    test("create streams recipients in: one row per email (case-insensitive), and status adds up", Effect.gen(function*() {
      const list = [...recipients(250), "R3@EXAMPLE.com", { email: " r7@example.com " }, "new@example.com"]
      const status = yield* createCampaign({ id: "c1", template: TEMPLATE, recipients: Stream.fromIterable(list) })
      expect(status).toMatchObject({ id: "c1", state: "draft", total: 251, remaining: 251, sent: 0, reserved: 0, failed: 0 })
      const store = yield* CampaignStore
      const row = Option.getOrThrow(yield* store.get("c1"))
      expect(row).toMatchObject({ total: 251, batchSize: 100, batches: 3, state: "draft" })
      expect(row.template).toEqual(TEMPLATE)
    }))

    test("an id in use is refused, even with the same template; replace swaps a draft's template and recipients", Effect.gen(function*() {
      const store = yield* CampaignStore
      yield* createCampaign({ id: "c1", template: TEMPLATE, recipients: Stream.fromIterable(recipients(120)) })
      const same = yield* Effect.flip(createCampaign({ id: "c1", template: TEMPLATE, recipients: Stream.fromIterable(recipients(180)) }))
      expect(same).toMatchObject({ _tag: "CampaignExists", state: "draft" })
      expect((yield* campaignStatus("c1")).total).toBe(120)
      const other = new CampaignTemplate({ ...TEMPLATE, subject: "Something else" })
      const replaced = yield* createCampaign({ id: "c1", template: other, recipients: Stream.fromIterable(recipients(30, "n")), replace: true })
      expect(replaced).toMatchObject({ state: "draft", total: 30, remaining: 30 })
      const row = Option.getOrThrow(yield* store.get("c1"))
      expect(row).toMatchObject({ total: 30, batches: 1 })
      expect(row.template.subject).toBe("Something else")
      // Only the new recipients are in the ledger: the old ones are gone.
      yield* store.transition("c1", { from: ["draft"], to: "running", now: T0 })
      const members = yield* leased("c1", 1, T0)
      expect(members.map((m) => m.email)).toEqual(recipients(30, "n").map((r) => r.email))
      // Replace on an id not in use simply creates it.
      expect(yield* createCampaign({ id: "c3", template: TEMPLATE, recipients: Stream.fromIterable(recipients(5)), replace: true }))
        .toMatchObject({ state: "draft", total: 5 })
      const invalid = yield* Effect.flip(createCampaign({ id: "c2", template: TEMPLATE, recipients: Stream.fromIterable(["a@x.example", "not an email"]) }))
      expect(invalid).toMatchObject({ _tag: "InvalidRecipient", position: 1 })
    }))

    test("a create refused part way stores nothing: its draft and every recipient already streamed in are gone, so a retry creates it", Effect.gen(function*() {
      const store = yield* CampaignStore
      // 1,200 good recipients (several insert statements), then a bad one.
      const list = [...recipients(1_200).map((r) => r.email), "not an email"]
      const refused = yield* Effect.flip(createCampaign({ id: "c1", template: TEMPLATE, recipients: Stream.fromIterable(list) }))
      expect(refused).toMatchObject({ _tag: "InvalidRecipient", position: 1_200 })
      expect(Option.isNone(yield* store.get("c1"))).toBe(true)
      expect(yield* store.counts("c1")).toMatchObject({ queued: 0 })
      expect(yield* createCampaign({ id: "c1", template: TEMPLATE, recipients: Stream.fromIterable(recipients(3)) }))
        .toMatchObject({ state: "draft", total: 3 })
      // discard deletes a draft only, and only the create's that carries its token.
      yield* runningCampaign("run", recipients(2))
      expect(yield* store.discard({ campaignId: "run", token: "any" })).toBe(false)
      expect((yield* campaignStatus("run")).total).toBe(2)
      yield* store.create({ id: "c4", template: TEMPLATE, batchSize: 100, now: T0, token: "tok-c4" })
      expect(yield* store.discard({ campaignId: "c4", token: "another create's" })).toBe(false)
      expect(Option.isSome(yield* store.get("c4"))).toBe(true)
      expect(yield* store.discard({ campaignId: "c4", token: "tok-c4" })).toBe(true)
      expect(Option.isNone(yield* store.get("c4"))).toBe(true)
    }))

    // Every email of a campaign's ledger, once started: its batches leased one by one.
    const ledgerEmails = (id: string) =>
      Effect.gen(function*() {
        const store = yield* CampaignStore
        yield* store.transition(id, { from: ["draft"], to: "running", now: T0 })
        const row = Option.getOrThrow(yield* store.get(id))
        const emails: Array<string> = []
        for (let batch = 1; batch <= row.batches; batch++) emails.push(...(yield* leased(id, batch, T0)).map((m) => m.email))
        return emails
      })

    test("a create replaced while it writes its recipients writes nothing more and is refused: the list kept is the other create's alone", Effect.gen(function*() {
      const written = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      // 1,100 recipients in (chunks of 500: the first is written once the second is read), then it waits.
      const first = recipients(1_200, "a")
      const slow = Stream.fromIterable(first.slice(0, 1_100)).pipe(
        Stream.concat(Stream.drain(Stream.fromEffect(Effect.zipRight(Deferred.succeed(written, undefined), Deferred.await(gate))))),
        Stream.concat(Stream.fromIterable(first.slice(1_100)))
      )
      const replaced = yield* Effect.fork(createCampaign({ id: "c1", template: TEMPLATE, recipients: slow, replace: true }))
      yield* Deferred.await(written)
      const other = new CampaignTemplate({ ...TEMPLATE, subject: "The other one" })
      const kept = yield* createCampaign({ id: "c1", template: other, recipients: Stream.fromIterable(recipients(300, "b")), replace: true })
      expect(kept).toMatchObject({ state: "draft", total: 300 })
      yield* Deferred.succeed(gate, undefined)
      const refused = yield* Effect.flip(Fiber.join(replaced))
      expect(refused).toMatchObject({ _tag: "CampaignExists", campaignId: "c1", superseded: true })
      expect(refused.message).toContain("replaced by another create")
      const store = yield* CampaignStore
      const row = Option.getOrThrow(yield* store.get("c1"))
      expect(row).toMatchObject({ sealed: true, total: 300, batches: 3 })
      expect(row.template.subject).toBe("The other one")
      expect(yield* ledgerEmails("c1")).toEqual(recipients(300, "b").map((r) => r.email))
    }))

    test("six creates replacing one draft at once: the list kept is exactly one create's, which answered it; each other one answered its own or was refused as replaced", Effect.gen(function*() {
      const lists = Array.from({ length: 6 }, (_, i) => recipients(1_100, `p${i}-`))
      // Each create's recipients come a few at a time, so that the creates' writes interleave.
      const trickle = (list: ReadonlyArray<Recipient>) =>
        Stream.fromIterable(list).pipe(Stream.rechunk(100), Stream.mapChunksEffect((chunk) => Effect.as(Effect.yieldNow(), chunk)))
      // Each starts a few hundred recipients after the one before it: most replace a draft another is still writing.
      const outcomes = yield* Effect.all(
        lists.map((list, i) =>
          Effect.zipRight(
            Effect.repeatN(Effect.yieldNow(), i * 7),
            Effect.either(createCampaign({ id: "c1", template: TEMPLATE, recipients: trickle(list), replace: true }))
          )
        ),
        { concurrency: "unbounded" }
      )
      // A create that answered may already have been replaced by the next one: its status is then that one's.
      for (const outcome of outcomes) {
        if (outcome._tag === "Left") expect(outcome.left).toMatchObject({ _tag: "CampaignExists", superseded: true })
        else expect(outcome.right).toMatchObject({ id: "c1" })
      }
      const emails = yield* ledgerEmails("c1")
      const prefixes = new Set(emails.map((email) => email.split("-")[0]))
      expect(prefixes.size).toBe(1)
      const winner = Number([...prefixes][0]!.slice(1))
      expect(emails).toEqual(lists[winner]!.map((r) => r.email))
      expect(outcomes[winner]!._tag).toBe("Right")
    }))

    test("a campaign that ever started is never replaced: running, paused and completed are 409 and keep their ledger", Effect.gen(function*() {
      const store = yield* CampaignStore
      const replace = (id: string) =>
        Effect.flip(createCampaign({ id, template: TEMPLATE, recipients: Stream.fromIterable(recipients(3, "x")), replace: true }))
      yield* runningCampaign("run", recipients(10))
      expect(yield* replace("run")).toMatchObject({ _tag: "CampaignExists", state: "running" })
      yield* runningCampaign("pau", recipients(10))
      yield* store.transition("pau", { from: ["running"], to: "paused", now: T0 })
      expect(yield* replace("pau")).toMatchObject({ _tag: "CampaignExists", state: "paused" })
      yield* runningCampaign("done", recipients(10))
      const members = yield* leased("done", 1, T0, "tok")
      yield* store.record("done", 1, "tok", sentAll(members), T0)
      expect(yield* replace("done")).toMatchObject({ _tag: "CampaignExists", state: "completed" })
      expect(Option.isNone(yield* store.replace({ id: "run", template: TEMPLATE, batchSize: 100, now: T0, token: "tok" }))).toBe(true)
      for (const id of ["run", "pau", "done"]) expect((yield* campaignStatus(id)).total).toBe(10)
      expect((yield* campaignStatus("done")).sent).toBe(10)
    }))

    test("transition is one conditional write: of 20 concurrent ones from a state exactly one applies", Effect.gen(function*() {
      const store = yield* CampaignStore
      yield* createCampaign({ id: "c1", template: TEMPLATE, recipients: Stream.fromIterable(recipients(10)) })
      const start = yield* Effect.all(
        Array.from({ length: 20 }, (_, i) => store.transition("c1", { from: ["draft"], to: "running", now: T0 + i })),
        { concurrency: "unbounded" }
      )
      expect(start.filter(Option.isSome)).toHaveLength(1)
      const pause = yield* Effect.all(
        Array.from({ length: 20 }, (_, i) => store.transition("c1", { from: ["running"], to: "paused", now: T0 + i, whileOpen: true })),
        { concurrency: "unbounded" }
      )
      expect(pause.filter(Option.isSome)).toHaveLength(1)
      expect(Option.getOrThrow(yield* store.get("c1")).state).toBe("paused")
      expect(Option.isNone(yield* store.transition("nope", { from: ["draft"], to: "running", now: T0 }))).toBe(true)
    }))

    test("whileOpen: a running campaign with nothing queued or reserved (completed) does not move", Effect.gen(function*() {
      const store = yield* CampaignStore
      yield* runningCampaign("c1", recipients(150))
      const first = yield* leased("c1", 1, T0, "a")
      yield* store.record("c1", 1, "a", sentAll(first), T0)
      const second = yield* leased("c1", 2, T0, "b")
      // The last batch is leased, not yet recorded: something is left, the pause applies.
      expect(Option.isSome(yield* store.transition("c1", { from: ["running"], to: "paused", now: T0, whileOpen: true }))).toBe(true)
      yield* store.transition("c1", { from: ["paused"], to: "running", now: T0 })
      yield* store.record("c1", 2, "b", sentAll(second), T0)
      expect((yield* campaignStatus("c1")).state).toBe("completed")
      expect(Option.isNone(yield* store.transition("c1", { from: ["running"], to: "paused", now: T0, whileOpen: true }))).toBe(true)
      expect(Option.getOrThrow(yield* store.get("c1")).state).toBe("running")
      // Without the guard the same write applies (resume of a paused campaign that finished meanwhile).
      expect(Option.isSome(yield* store.transition("c1", { from: ["running"], to: "paused", now: T0 }))).toBe(true)
    }))

    test("reserve fixes a batch: the next 100 queued in order, leased; a fresh lease is InProgress; a used slot takes no one new", Effect.gen(function*() {
      yield* runningCampaign("c1", recipients(250))
      const first = yield* leased("c1", 1, T0)
      expect(first.map((m) => m.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i))
      expect(first[0]).toMatchObject({ email: "r0@example.com", vars: { name: "Reader 0" }, attempts: 0, uncertain: false, solo: false })
      expect(yield* reserve("c1", 1, T0 + 1)).toEqual({ _tag: "InProgress", until: T0 + LEASE })
      const third = yield* leased("c1", 3, T0 + 2)
      expect(third.map((m) => m.seq)).toEqual(Array.from({ length: 100 }, (_, i) => 100 + i))
      const second = yield* leased("c1", 2, T0 + 3)
      expect(second.map((m) => m.seq)).toEqual(Array.from({ length: 50 }, (_, i) => 200 + i))
      expect(yield* reserve("c1", 4, T0 + 4)).toEqual({ _tag: "Empty" })
      expect(yield* campaignStatus("c1")).toMatchObject({ total: 250, reserved: 250, remaining: 0 })
    }))

    test("record under the token: sent and failed are final, retry frees the row; a stale token writes nothing", Effect.gen(function*() {
      const store = yield* CampaignStore
      yield* runningCampaign("c1", recipients(100))
      const members = yield* leased("c1", 1, T0, "tok")
      expect(yield* store.record("c1", 1, "stale", sentAll(members), T0 + 1)).toBe(0)
      const results: Array<MemberResult> = members.map((m) =>
        m.seq < 90
          ? { seq: m.seq, outcome: "sent", messageId: `msg-${m.seq}` }
          : m.seq < 95
          ? { seq: m.seq, outcome: "failed", error: "invalid recipient" }
          : { seq: m.seq, outcome: "retry", error: "timeout", uncertain: true, solo: true }
      )
      expect(yield* store.record("c1", 1, "tok", results, T0 + 1)).toBe(100)
      expect(yield* store.record("c1", 1, "tok", results, T0 + 2)).toBe(0)
      expect(yield* campaignStatus("c1")).toMatchObject({ total: 100, sent: 90, failed: 5, reserved: 5, remaining: 0 })
      const failed = yield* store.failedRecipients("c1", { limit: 3 })
      expect(failed.map((r) => r.seq)).toEqual([90, 91, 92])
      expect(failed.every((r) => r.error === "invalid recipient" && r.email.length > 0)).toBe(true)
      expect(yield* store.failedRecipients("c1", { limit: 100 })).toHaveLength(5)
      // The retry rows are leased again at once (their lease was freed), with what was recorded.
      const again = yield* leased("c1", 1, T0 + 3, "tok-2")
      expect(again.map((m) => [m.seq, m.attempts, m.uncertain, m.solo])).toEqual(
        [95, 96, 97, 98, 99].map((seq) => [seq, 1, true, true])
      )
      yield* store.record("c1", 1, "tok-2", sentAll(again), T0 + 4)
      expect(yield* reserve("c1", 1, T0 + 5)).toEqual({ _tag: "Done", members: 100 })
      expect(yield* campaignStatus("c1")).toMatchObject({ state: "completed", sent: 95, failed: 5, reserved: 0 })
    }))

    test("record stores the batch's alerts in the same atomic step, only when it applies: a stale token stores none", Effect.gen(function*() {
      const store = yield* CampaignStore
      const alertStore = yield* AlertStore
      yield* runningCampaign("c1", recipients(3))
      const members = yield* leased("c1", 1, T0, "tok")
      const alert = (id: string) =>
        new Alert({ id, kind: "failed", orderKey: null, message: `batch 1: ${id}`, createdAt: T0, deliveredAt: null, deliveryError: null })
      const failedAll = members.map((m): MemberResult => ({ seq: m.seq, outcome: "failed", error: "invalid recipient" }))
      expect(yield* store.record("c1", 1, "stale", failedAll, T0 + 1, [alert("stale")])).toBe(0)
      expect(yield* alertStore.list({ limit: 10 })).toEqual([])
      expect(yield* store.record("c1", 1, "tok", failedAll, T0 + 1, [alert("real"), alert("dup")])).toBe(3)
      expect((yield* alertStore.list({ limit: 10 })).map((a) => a.id).sort()).toEqual(["dup", "real"])
      expect(yield* campaignStatus("c1")).toMatchObject({ failed: 3, reserved: 0 })
      // A late holder (its lease taken over, a token that never wrote) stores nothing either.
      expect(yield* store.record("c1", 1, "late", failedAll, T0 + 2, [alert("late")])).toBe(0)
      expect((yield* alertStore.list({ limit: 10 })).map((a) => a.id).sort()).toEqual(["dup", "real"])
    }))

    test("an expired lease is taken over: the same members, marked uncertain, and the late holder writes nothing", Effect.gen(function*() {
      const store = yield* CampaignStore
      yield* runningCampaign("c1", recipients(150))
      const first = yield* leased("c1", 1, T0, "dead")
      const second = yield* leased("c1", 1, T0 + LEASE, "alive")
      expect(second.map((m) => m.seq)).toEqual(first.map((m) => m.seq))
      expect(second.every((m) => m.uncertain)).toBe(true)
      expect(yield* store.record("c1", 1, "dead", sentAll(first), T0 + LEASE + 1)).toBe(0)
      expect(yield* store.record("c1", 1, "alive", sentAll(second), T0 + LEASE + 1)).toBe(100)
    }))

    test("nothing is leased while paused; the open batches are the unsent and the never used", Effect.gen(function*() {
      const store = yield* CampaignStore
      yield* runningCampaign("c1", recipients(350))
      const one = yield* leased("c1", 1, T0, "a")
      yield* store.record("c1", 1, "a", sentAll(one), T0)
      yield* leased("c1", 2, T0, "b")
      yield* store.transition("c1", { from: ["running"], to: "paused", now: T0 })
      expect(yield* reserve("c1", 3, T0 + 1)).toEqual({ _tag: "NotRunning", state: "paused" })
      expect(yield* reserve("c1", 2, T0 + 2 * LEASE)).toEqual({ _tag: "NotRunning", state: "paused" })
      expect(yield* store.openBatches("c1")).toEqual([2, 3, 4])
      expect(yield* campaignStatus("c1")).toMatchObject({ state: "paused", sent: 100, reserved: 100, remaining: 150 })
      expect(yield* reserve("nope", 1, T0)).toEqual({ _tag: "NotFound" })
    }))

    test("prevented duplicates add up on the campaign", Effect.gen(function*() {
      const store = yield* CampaignStore
      yield* runningCampaign("c1", recipients(10))
      expect(yield* store.notePrevented("c1", 10)).toBe(10)
      expect(yield* store.notePrevented("c1", 7)).toBe(17)
      expect((yield* campaignStatus("c1")).duplicatesPrevented).toBe(17)
    }))
  })
