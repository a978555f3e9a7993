/**
 * @hookgate/provider-paddle/testing: sign requests as Paddle does, build the
 * events hookgate reads, and run a local stand-in for Paddle's customer API.
 */
export { paddleH1Signature, paddleSignatureHeader, type SignOptions, signPaddleRequest } from "./sign.js"
export { paddleEvent, type TransactionFields, transactionEvent } from "./events.js"
export { type PaddleFault, type PaddleTestServer, type RecordedRequest, startPaddleTestServer } from "./server.js"
