/**
 * @hookgate/mailer-smtp: hookgate's `Mailer` on any SMTP server (your domain's,
 * Postmark's, SES's, Mailgun's) through nodemailer's pooled transport, with
 * STARTTLS or implicit TLS and SMTP replies classified. One namespace:
 * `Smtp.layerConfig()`, `Smtp.layer(options)`, `Smtp.make(options)`.
 */
export * as Smtp from "./Smtp.js"
