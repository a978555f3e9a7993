import * as EpochMillis from "../kernel/EpochMillis.js"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { CampaignId, type CampaignState, CampaignTemplate, Recipient, RecipientOnLine } from "./campaign.js"
import { spanWhenTraced } from "../kernel/spans.js"
import { CampaignStore } from "./campaign-store.js"
import { CampaignExists, InvalidCampaign, InvalidRecipient, RecipientTooLarge } from "./errors.js"
import { CampaignOptions } from "./options.js"
import { campaignStatus } from "./status.js"
import { shownState } from "./transitions.js"

export interface CreateCampaignInput<E, R> {
  readonly id: string
  /** A `CampaignTemplate`, or its fields (validated here). */
  readonly template: CampaignTemplate | typeof CampaignTemplate.Encoded
  /**
   * From an array (`Stream.fromIterable`), a file's lines, a SQL query: pulled a chunk at a
   * time. A reader that knows where each came from gives `RecipientOnLine`s: errors name the line.
   */
  readonly recipients: Stream.Stream<Recipient | string | RecipientOnLine, E, R>
  /**
   * When the id names a draft (never started): replace its template and recipients
   * (default false: an existing id is refused with `CampaignExists`, 409). A campaign
   * that ever started is never replaced.
   */
  readonly replace?: boolean
}

const EMAIL = /^[^\s@]+@[^\s@]+$/
let recipientDecoder: ((input: unknown) => Either.Either<Recipient, ParseResult.ParseError>) | undefined
const decodeRecipient = (input: unknown) => (recipientDecoder ??= Schema.decodeUnknownEither(Recipient))(input)

/** One recipient as the ledger keeps it: the email trimmed and lower-cased (the uniqueness key). */
export const normalizeRecipient = (input: unknown): Either.Either<Recipient, string> => {
  const decoded = typeof input === "string" ? decodeRecipient({ email: input }) : decodeRecipient(input)
  if (Either.isLeft(decoded)) return Either.left(ParseResult.TreeFormatter.formatErrorSync(decoded.left))
  const email = decoded.right.email.trim().toLowerCase()
  if (!EMAIL.test(email)) return Either.left(`"${email}" is not an email address`)
  return Either.right(decoded.right.vars === undefined ? { email } : { email, vars: decoded.right.vars })
}

const encoder = new TextEncoder()

/** A recipient's size as the ledger stores it: its JSON in UTF-8 bytes. */
const recipientBytes = (recipient: Recipient) => encoder.encode(JSON.stringify(recipient)).byteLength

/** A chunk of the stream as ledger rows, or the first recipient in it that cannot be one. */
const validChunk = (
  campaignId: string,
  firstSeq: number,
  chunk: Chunk.Chunk<unknown>,
  maxRecipientBytes: number
): Effect.Effect<ReadonlyArray<Recipient>, InvalidRecipient | RecipientTooLarge> =>
  Effect.suspend((): Effect.Effect<ReadonlyArray<Recipient>, InvalidRecipient | RecipientTooLarge> => {
    const recipients: Array<Recipient> = []
    for (const [i, item] of Chunk.toReadonlyArray(chunk).entries()) {
      const position = firstSeq + i
      const line = item instanceof RecipientOnLine ? item.line : undefined
      const recipient = normalizeRecipient(item instanceof RecipientOnLine ? item.recipient : item)
      if (Either.isLeft(recipient)) return Effect.fail(new InvalidRecipient({ campaignId, position, line, detail: recipient.left }))
      const bytes = recipientBytes(recipient.right)
      if (bytes > maxRecipientBytes) {
        return Effect.fail(
          new RecipientTooLarge({ campaignId, position, line, email: recipient.right.email, bytes, limit: maxRecipientBytes })
        )
      }
      recipients.push(recipient.right)
    }
    return Effect.succeed(recipients)
  })

/**
 * Creates a campaign as a draft and streams its recipients into the ledger,
 * a chunk per statement, so memory stays flat whatever the campaign's size, and
 * seals it (its list complete: it may start) in the step that writes the last chunk.
 * An invalid recipient stops it with `InvalidRecipient`, one over `maxRecipientBytes`
 * with `RecipientTooLarge`, each naming its line when the stream gave it
 * (`RecipientOnLine`); nothing is kept then. A repeated email is kept once. An id
 * already in use is refused (`CampaignExists`) unless `replace` is asked for and the
 * campaign is still a draft (a creation that was cut short, or a list that changed):
 * then its template and recipients are replaced by these. Of creates replacing one draft
 * at once, each replace is whole: the list kept is one create's, and a create replaced
 * while it was writing is refused (`CampaignExists` with `superseded`).
 */
export const createCampaign = <E, R>(input: CreateCampaignInput<E, R>) =>
  Effect.gen(function*() {
    const store = yield* CampaignStore
    const options = yield* CampaignOptions
    const id = yield* Schema.decodeUnknown(CampaignId)(input.id).pipe(
      Effect.mapError(() => new InvalidCampaign({ campaignId: input.id, detail: "ids are 1 to 100 letters, digits, '.', '_' or '-'" }))
    )
    const template = yield* Schema.decodeUnknown(CampaignTemplate)(
      input.template instanceof CampaignTemplate ? Schema.encodeSync(CampaignTemplate)(input.template) : input.template
    ).pipe(Effect.mapError((error) => new InvalidCampaign({ campaignId: id, detail: error.message })))
    const now = yield* EpochMillis.now
    // This create's own mark on the draft: a create that replaces it meanwhile sets its own,
    // and every write below then changes nothing (a list is never a mix of two creates').
    const draft = { campaignId: id, token: crypto.randomUUID() }
    const terms = { id, template, batchSize: options.batchSize, now, token: draft.token }
    const { campaign, created } = yield* store.create(terms)
    const refuse = (state: CampaignState, superseded = false) =>
      Effect.flatMap(store.counts(id), (counts) =>
        new CampaignExists({ campaignId: id, state: shownState(state, counts), ...(superseded ? { superseded } : {}) }))
    if (!created) {
      if (input.replace !== true) return yield* refuse(campaign.state)
      // One atomic step, only while it is a draft: a start that won the race keeps its campaign.
      const replaced = yield* store.replace(terms)
      if (Option.isNone(replaced)) {
        const current = yield* store.get(id)
        return yield* refuse(Option.match(current, { onNone: () => campaign.state, onSome: (row) => row.state }))
      }
    }
    // All or nothing: a recipient refused (or a stream that fails) part way discards the draft,
    // so the retry is a fresh create, not a 409 over a half-filled or empty draft. Each chunk is
    // written once the next one is read, so the last one goes in `seal`'s atomic step: the list
    // is complete (and startable) in the very write that completes it.
    const sealed = yield* input.recipients.pipe(
      Stream.grouped(options.insertChunk),
      Stream.mapAccum(0, (seq, chunk) => [seq + Chunk.size(chunk), [seq, chunk] as const]),
      Stream.mapEffect(([firstSeq, chunk]) =>
        Effect.map(validChunk(id, firstSeq, chunk, options.maxRecipientBytes), (recipients) => ({ firstSeq, recipients }))
      ),
      Stream.runFoldEffect({ firstSeq: 0, recipients: [] as ReadonlyArray<Recipient> }, (previous, next) =>
        Effect.as(
          previous.recipients.length === 0 ? Effect.void : store.addRecipients(draft, previous.firstSeq, previous.recipients),
          next
        )),
      Effect.flatMap((last) => Effect.flatMap(EpochMillis.now, (now) => store.seal(draft, { now, ...last }))),
      Effect.onError(() => Effect.ignore(store.discard(draft)))
    )
    // No draft carried this create's token when it sealed: another create replaced it (and
    // wrote its own list), or replaced and then discarded it. Nothing of this one's is kept.
    if (Option.isNone(sealed)) {
      const current = yield* store.get(id)
      return yield* refuse(Option.match(current, { onNone: () => "draft" as const, onSome: (row) => row.state }), true)
    }
    return yield* campaignStatus(id)
  }).pipe(spanWhenTraced("campaign.create", { campaignId: input.id }))
