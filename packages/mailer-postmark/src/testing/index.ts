/**
 * @hookgate/mailer-postmark/testing: a local stand-in speaking the part of
 * Postmark's Email API hookgate uses, written from Postmark's API reference and
 * checked against the official `postmark` client, for hookgate's tests and yours (Node only).
 */
export { PostmarkTestServer, type PostmarkTestServerShape, startPostmarkTestServer } from "./server.js"
export { type IncomingRequest, MAX_BATCH_MESSAGES, PostmarkSimulator, type Reply, TEST_TOKEN } from "./simulator.js"
export { ErrorCodes } from "./validate.js"
export type {
  AcceptedEmail,
  PostmarkErrorReply,
  PostmarkFault,
  PostmarkTestServerOptions,
  RecordedRequest
} from "./types.js"
