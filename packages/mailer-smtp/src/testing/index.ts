/**
 * @hookgate/mailer-smtp/testing: a real SMTP server (nodemailer's `smtp-server`)
 * on a local port, with AUTH, STARTTLS or implicit TLS and scripted replies and
 * dropped connections, for hookgate's tests and yours (Node only).
 */
export {
  type ReceivedMessage,
  type SmtpFault,
  type SmtpStage,
  SmtpTestServer,
  type SmtpTestServerOptions,
  type SmtpTestServerShape,
  startSmtpTestServer
} from "./server.js"
