/** An email the stand-in accepted (it "went out"). */
export interface AcceptedEmail {
  /** Postmark's `MessageID` (a UUID). */
  readonly id: string
  readonly from: string
  readonly to: string
  readonly subject: string | undefined
  readonly textBody: string | undefined
  readonly htmlBody: string | undefined
  readonly replyTo: string | undefined
  readonly headers: ReadonlyArray<{ readonly Name: string; readonly Value: string }>
  readonly messageStream: string | undefined
  readonly endpoint: "/email" | "/email/batch"
  /** Epoch ms. */
  readonly acceptedAt: number
}

/** Every request the stand-in saw, with how it answered. */
export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly userAgent: string | undefined
  /** The status, or `"dropped"` when the connection was closed instead of answering. */
  readonly status: number | "dropped"
  /** The answer's `ErrorCode` (for a batch: each message's, in order). */
  readonly errorCodes: ReadonlyArray<number>
  /** Epoch ms. */
  readonly receivedAt: number
}

/** An error answer as Postmark sends it: an HTTP status and `{ ErrorCode, Message }`. */
export interface PostmarkErrorReply {
  readonly status: number
  readonly errorCode: number
  readonly message: string
}

/** A scripted fault, for the next request that passes authentication. */
export type PostmarkFault =
  | { readonly _tag: "Fail"; readonly error: PostmarkErrorReply }
  /** Close the connection without accepting. */
  | { readonly _tag: "Drop" }
  /** Accept (record the emails), then close the connection without answering. */
  | { readonly _tag: "AcceptThenDrop" }
  /** Wait, then handle the request normally. */
  | { readonly _tag: "Delay"; readonly millis: number }

export interface PostmarkTestServerOptions {
  /** The only server token accepted (default `postmark-test-server-token`). */
  readonly serverToken?: string
  readonly port?: number
  readonly host?: string
  /** When set, `From` must be on one of these domains (else ErrorCode 400, no sender signature). */
  readonly senderDomains?: ReadonlyArray<string>
  /** Recipients marked inactive (hard bounce, spam complaint, manual suppression): ErrorCode 406. */
  readonly inactiveRecipients?: ReadonlyArray<string>
}
