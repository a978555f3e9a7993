import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { AddressInfo, Socket } from "node:net"
import { SMTPServer, type SMTPServerSession } from "smtp-server"
import type { SmtpOptions, SmtpSecurity } from "../options.js"

/** Where a scripted fault answers. */
export type SmtpStage = "MAIL FROM" | "RCPT TO" | "DATA"

/** What the server does instead of accepting. */
export type SmtpFault =
  /** Answer the command (or, at `DATA`, the message once received) with this reply. */
  | { readonly _tag: "Reply"; readonly stage: SmtpStage; readonly code: number; readonly message: string }
  /** Close the connection without a reply, at the command (or after the whole message, at `DATA`). */
  | { readonly _tag: "Drop"; readonly stage: SmtpStage }
  /** Never reply, at the command (or after the whole message, at `DATA`); the connection stays open. */
  | { readonly _tag: "Stall"; readonly stage: SmtpStage }

/** A message the server received whole (after the terminating dot). */
export interface ReceivedMessage {
  readonly from: string
  readonly to: ReadonlyArray<string>
  /** The raw message, headers and body, CRLF line ends. */
  readonly raw: string
  /** The `Message-ID` header's value. */
  readonly messageId: string | undefined
  /** The authenticated user, if any. */
  readonly user: string | undefined
  /** Whether the session was encrypted (implicit TLS or after STARTTLS). */
  readonly secure: boolean
  /** The connection it came over (a pooled connection sends several). */
  readonly connection: string
  /** How it was answered: `250`, a scripted reply code, or `dropped` (closed, or left, unanswered). */
  readonly reply: number | "dropped"
}

export interface SmtpTestServerOptions {
  /** `starttls` (default), `tls` (implicit TLS) or `none` (no STARTTLS offered). */
  readonly security?: SmtpSecurity
  /** PEM key and certificate for `starttls` and `tls` (generate a self-signed pair in the test). */
  readonly key?: string
  readonly cert?: string
  /** Accepted credentials (default `{ hookgate: "smtp-test-password" }`); `false`: no AUTH at all. */
  readonly users?: Readonly<Record<string, string>> | false
  /** Recipients answered `550 5.1.1` at RCPT TO, in every transaction. */
  readonly rejectRecipients?: ReadonlyArray<string>
  readonly host?: string
  readonly port?: number
}

export interface SmtpTestServerShape {
  readonly host: string
  readonly port: number
  /** `{ host, port, security, auth }` for the mailer (add `tls: { ca: cert }` for a self-signed certificate). */
  readonly mailerOptions: SmtpOptions
  /** Every message received whole, in order, however it was answered. */
  readonly messages: ReadonlyArray<ReceivedMessage>
  /** Connections opened so far. */
  readonly connections: number
  /** AUTH attempts so far, with their outcome. */
  readonly logins: ReadonlyArray<{ readonly user: string; readonly ok: boolean }>
  /** The next `count` transactions meet this fault at its stage. */
  readonly failNext: (count: number, fault: SmtpFault) => void
  /** Forgets messages, logins, faults and the connection count. */
  readonly reset: () => void
  readonly close: () => Promise<void>
}

const DEFAULT_USERS: Readonly<Record<string, string>> = { hookgate: "smtp-test-password" }

const readAll = (stream: NodeJS.ReadableStream) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    stream.on("data", (chunk: Buffer) => chunks.push(chunk))
    stream.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    stream.on("error", reject)
  })

const headerOf = (raw: string, name: string) => {
  const head = raw.split("\r\n\r\n", 1)[0] ?? ""
  const unfolded = head.replace(/\r\n[ \t]+/g, " ")
  const line = unfolded.split("\r\n").find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))
  return line?.slice(name.length + 1).trim()
}

const replyError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code })

/**
 * Starts a real SMTP server (nodemailer's `smtp-server`) on a local port, with
 * AUTH, STARTTLS or implicit TLS, and scripted faults per transaction (Node only).
 */
export const startSmtpTestServer = async (options: SmtpTestServerOptions = {}): Promise<SmtpTestServerShape> => {
  const security = options.security ?? "starttls"
  const users = options.users ?? DEFAULT_USERS
  const messages: Array<ReceivedMessage> = []
  const logins: Array<{ user: string; ok: boolean }> = []
  const faults: Array<SmtpFault> = []
  // Each transaction takes the next fault at MAIL FROM and meets it at its stage.
  const pending = new Map<string, SmtpFault | undefined>()
  const sockets = new Map<number, Socket>()
  const rejected = new Set((options.rejectRecipients ?? []).map((address) => address.toLowerCase()))
  let connections = 0

  const drop = (session: SMTPServerSession) => sockets.get(session.remotePort)?.destroy()
  const faultAt = (session: SMTPServerSession, stage: SmtpStage) => {
    const fault = pending.get(session.id)
    return fault !== undefined && fault.stage === stage ? fault : undefined
  }
  const meet = (session: SMTPServerSession, stage: SmtpStage, callback: (error?: Error | null) => void) => {
    const fault = faultAt(session, stage)
    if (fault === undefined) return callback()
    if (fault._tag === "Drop") return drop(session)
    if (fault._tag === "Stall") return
    return callback(replyError(fault.code, fault.message))
  }

  const server = new SMTPServer({
    secure: security === "tls",
    ...(options.key === undefined ? {} : { key: options.key }),
    ...(options.cert === undefined ? {} : { cert: options.cert }),
    disabledCommands: [...(security === "none" ? ["STARTTLS"] : []), ...(users === false ? ["AUTH"] : [])],
    authOptional: users === false,
    // Plaintext AUTH only where the mode has no TLS at all (a local relay).
    allowInsecureAuth: security === "none",
    logger: false,
    onConnect: (_session, callback) => {
      connections++
      callback()
    },
    onAuth: (auth, _session, callback) => {
      const ok = users !== false && auth.username !== undefined && users[auth.username] === auth.password
      logins.push({ user: auth.username ?? "", ok })
      if (!ok) return callback(replyError(535, "5.7.8 Authentication credentials invalid"))
      callback(null, { user: auth.username })
    },
    onMailFrom: (_address, session, callback) => {
      pending.set(session.id, faults.shift())
      meet(session, "MAIL FROM", callback)
    },
    onRcptTo: (address, session, callback) =>
      rejected.has(address.address.toLowerCase())
        ? callback(replyError(550, "5.1.1 The email account that you tried to reach does not exist"))
        : meet(session, "RCPT TO", callback),
    onData: (stream, session, callback) => {
      void readAll(stream).then((raw) => {
        const fault = faultAt(session, "DATA")
        const reply = fault === undefined ? 250 : fault._tag === "Reply" ? fault.code : "dropped" as const
        messages.push({
          from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          messageId: headerOf(raw, "Message-ID"),
          user: typeof session.user === "string" ? session.user : undefined,
          secure: session.secure,
          connection: session.id,
          reply
        })
        meet(session, "DATA", callback)
      }, (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))))
    }
  })
  server.server.on("connection", (socket: Socket) => {
    if (socket.remotePort !== undefined) sockets.set(socket.remotePort, socket)
    socket.once("close", () => {
      if (socket.remotePort !== undefined) sockets.delete(socket.remotePort)
    })
  })
  server.on("error", () => {}) // a client that goes away mid-session is not the test's failure

  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject)
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve())
  })
  const address = server.server.address() as AddressInfo
  const firstUser = users === false ? undefined : Object.entries(users)[0]

  return {
    host: address.address,
    port: address.port,
    mailerOptions: {
      host: address.address,
      port: address.port,
      security,
      ...(firstUser === undefined ? {} : { auth: { user: firstUser[0], password: Redacted.make(firstUser[1]) } })
    },
    get messages() {
      return [...messages]
    },
    get connections() {
      return connections
    },
    get logins() {
      return [...logins]
    },
    failNext: (count, fault) => {
      for (let i = 0; i < count; i++) faults.push(fault)
    },
    reset: () => {
      messages.length = 0
      logins.length = 0
      faults.length = 0
      connections = 0
    },
    close: async () => {
      for (const socket of sockets.values()) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

/**
 * The test server as an Effect service: `SmtpTestServer.layer()` starts it for a
 * layer's lifetime, `SmtpTestServer.scoped()` for a scope's.
 */
export class SmtpTestServer extends Context.Tag("@hookgate/mailer-smtp/testing/SmtpTestServer")<
  SmtpTestServer,
  SmtpTestServerShape
>() {
  static readonly start = startSmtpTestServer

  static scoped(options: SmtpTestServerOptions = {}): Effect.Effect<SmtpTestServerShape, never, Scope.Scope> {
    return Effect.acquireRelease(
      Effect.promise(() => startSmtpTestServer(options)),
      (server) => Effect.promise(() => server.close())
    )
  }

  static layer(options: SmtpTestServerOptions = {}): Layer.Layer<SmtpTestServer> {
    return Layer.scoped(SmtpTestServer, SmtpTestServer.scoped(options))
  }
}
