/**
 * @hookgate/mailer-resend/testing: a local server speaking the part of
 * Resend's API hookgate uses, for hookgate's tests and yours (Node only).
 */
export { ResendTestServer, type ResendTestServerShape, startResendTestServer } from "./server.js"
export { ResendSimulator, type IncomingRequest, type Reply } from "./simulator.js"
export type {
  AcceptedEmail,
  RecordedRequest,
  ResendErrorReply,
  ResendFault,
  ResendTestServerOptions
} from "./types.js"
