/**
 * Everything the pipeline needs in a test: `TestPipeline.layer({ store, providers })`.
 */
import * as Layer from "effect/Layer"
import { RetryPolicy } from "@hookgate/core"
import { MailerCircuit } from "@hookgate/core/mail"
import { Providers } from "@hookgate/core/providers"
import type { TestPipelineOptions } from "./pipeline.js"
import { RecordingAlerter } from "./recording-alerter.js"
import { ScriptedMailer } from "./scripted-mailer.js"
import * as TestRenderer from "./TestRenderer.js"

/**
 * Everything `receive`, `deliver` and `sweep` need, for a test: the given store
 * and providers, the scripted mailer (behind its `MailerCircuit`), the recording
 * alerter, the test renderer.
 */
export const layer = <E, R>(options: TestPipelineOptions<E, R>) =>
  Layer.mergeAll(
    options.store,
    ScriptedMailer.layer(options.mailer),
    RecordingAlerter.layer({ failing: options.alerterFails ?? false }),
    TestRenderer.layer,
    RetryPolicy.layer({ inRequestBase: 0, ...options.policy }),
    Providers.layer(...options.providers),
    MailerCircuit.layer(options.circuit)
  )
