import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

/** Campaign tunables. */
export interface CampaignOptionsShape {
  /** Recipients per batch (default and maximum 100, Resend's batch limit). */
  readonly batchSize: number
  /** Sends at once for a mailer without batch sending (default 4). */
  readonly perRecipientConcurrency: number
  /** Recipients per insert while a campaign's recipients stream in (default 500). */
  readonly insertChunk: number
  /**
   * Largest recipient accepted, its email and vars as JSON in UTF-8 bytes (default 100,000).
   * A larger one is refused at create time (`RecipientTooLarge`, a 400): D1 caps a string
   * or row at 2,000,000 bytes, and the SQL store sends recipients in arrays of at most
   * 1,000,000 bytes, so anything under this limit always fits, escaped.
   */
  readonly maxRecipientBytes: number
  /** Alert once a campaign's prevented duplicates reach this (default 100: one whole batch). */
  readonly duplicatesAlertThreshold: number
}

/** The defaults of `CampaignOptions`. */
export const defaultCampaignOptions: CampaignOptionsShape = {
  batchSize: 100,
  perRecipientConcurrency: 4,
  insertChunk: 500,
  maxRecipientBytes: 100_000,
  duplicatesAlertThreshold: 100
}

/** Overrides of the campaign tunables (`CampaignOptions.layer({...})`); a reference: the defaults without it. */
export class CampaignOptions extends Context.Reference<CampaignOptions>()("@hookgate/core/CampaignOptions", {
  defaultValue: (): CampaignOptionsShape => defaultCampaignOptions
}) {
  static layer(options: Partial<CampaignOptionsShape>): Layer.Layer<CampaignOptions> {
    const merged = { ...defaultCampaignOptions, ...options }
    if (merged.batchSize < 1 || merged.batchSize > 100) throw new RangeError("batchSize must be between 1 and 100")
    return Layer.succeed(CampaignOptions, merged)
  }
}
