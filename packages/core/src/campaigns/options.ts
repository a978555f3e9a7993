import { Context, Layer } from "effect"

/** Campaign tunables. */
export interface CampaignOptionsShape {
  /** Recipients per batch (default and maximum 100, Resend's batch limit). */
  readonly batchSize: number
  /** Sends at once for a mailer without batch sending (default 4). */
  readonly perRecipientConcurrency: number
  /** Recipients per insert while a campaign's recipients stream in (default 500). */
  readonly insertChunk: number
  /** Alert once a campaign's prevented duplicates reach this (default 100: one whole batch). */
  readonly duplicatesAlertThreshold: number
}

/** The defaults of `CampaignOptions`. */
export const defaultCampaignOptions: CampaignOptionsShape = {
  batchSize: 100,
  perRecipientConcurrency: 4,
  insertChunk: 500,
  duplicatesAlertThreshold: 100
}

/** Overrides of the campaign tunables (`CampaignOptions.layer({...})`); the defaults without it. */
export class CampaignOptions extends Context.Tag("@hookgate/core/CampaignOptions")<CampaignOptions, CampaignOptionsShape>() {
  static layer(options: Partial<CampaignOptionsShape>): Layer.Layer<CampaignOptions> {
    const merged = { ...defaultCampaignOptions, ...options }
    if (merged.batchSize < 1 || merged.batchSize > 100) throw new RangeError("batchSize must be between 1 and 100")
    return Layer.succeed(CampaignOptions, merged)
  }
}
