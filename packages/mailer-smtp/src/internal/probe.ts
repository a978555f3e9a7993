import type { Readable } from "node:stream"
import type * as Mail from "nodemailer/lib/mailer"

/**
 * Whether any byte of one message reached the SMTP connection. nodemailer pipes
 * the message stream into the connection only once the server has accepted the
 * envelope and answered DATA with 354, so a stream nobody read means the server
 * cannot hold the message (nodemailer's pool makes the same test before it
 * requeues a message). A stream that was read may have been accepted, even if
 * the connection then died before the server's reply.
 */
export interface WriteProbe {
  stream: Readable | undefined
}

/** The key under which a send's probe travels in nodemailer's `mail.data` (its own string keys are copied). */
const PROBE_KEY = "hookgateWriteProbe"

export const makeProbe = (): WriteProbe => ({ stream: undefined })

export const messageWasWritten = (probe: WriteProbe): boolean => probe.stream?.readableDidRead === true

export const withProbe = <A extends object>(options: A, probe: WriteProbe): A => ({ ...options, [PROBE_KEY]: probe })

/**
 * A nodemailer `stream` plugin (it runs after the message is compiled, before the
 * transport): records the stream each delivery attempt reads, the pool's requeue included.
 */
export const probePlugin: Mail.PluginFunction = (mail, done) => {
  const probe = (mail.data as Record<string, unknown>)[PROBE_KEY] as WriteProbe | undefined
  if (probe !== undefined) {
    const message = mail.message
    const create = message.createReadStream.bind(message)
    message.createReadStream = (options) => {
      const stream = create(options)
      probe.stream = stream
      return stream
    }
  }
  done()
}
