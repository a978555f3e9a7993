/**
 * The Workers `send_email` binding, typed structurally so this package needs
 * neither `@cloudflare/workers-types` nor `cloudflare:email` to type-check:
 * `env.EMAIL` (workers-types' `SendEmail`) is assignable to `SendEmailBinding`.
 */

/** The Email Sending form's message (the part of `EmailMessageBuilder` hookgate uses). */
export interface EmailSendingMessage {
  readonly from: string | { readonly email: string; readonly name: string }
  readonly to: string
  readonly subject: string
  readonly text?: string
  readonly html?: string
  readonly replyTo?: string | { readonly email: string; readonly name: string }
  readonly headers?: Record<string, string>
}

/** An `EmailMessage` from `cloudflare:email`: envelope addresses plus the raw MIME. */
export interface EmailMessageLike {
  readonly from: string
  readonly to: string
}

/** `EmailMessage` from `cloudflare:email`. */
export type EmailMessageConstructor = new (from: string, to: string, raw: string) => EmailMessageLike

/** The Workers `send_email` binding, as far as hookgate uses it. */
export interface SendEmailBinding {
  send(message: EmailMessageLike): Promise<unknown>
  send(builder: EmailSendingMessage): Promise<unknown>
}

/** The error the binding throws: Email Sending sets `.code` (`E_RATE_LIMIT_EXCEEDED`, …). */
export interface BindingError {
  readonly code?: unknown
  readonly message?: unknown
}
