/** The steps a scripted mailer's script is written in: `MailerSteps.succeed`, `MailerSteps.transient()`, … */
import type * as Duration from "effect/Duration"
import { type MailerStep, Step } from "./scripted-mailer.js"

export const succeed = Step.Succeed()
export const transient = (options: { readonly retryAfter?: Duration.DurationInput; readonly alert?: boolean } = {}) =>
  Step.Transient(options)
export const rejected = (detail = "invalid recipient") => Step.Rejected({ detail })
export const misconfigured = (code = "restricted_api_key") => Step.Misconfigured({ code })
export const acceptedThenUnknown = Step.AcceptedThenUnknown()
export const slow = (duration: Duration.DurationInput, then: MailerStep = Step.Succeed()) => Step.Slow({ duration, then })
