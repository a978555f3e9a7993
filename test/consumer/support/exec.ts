import { execFile } from "node:child_process"

/** The environment a user's shell would have: nothing from the `npm test` or vitest running this test. */
export const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(npm_|VITEST|INIT_CWD$|NODE_OPTIONS$|NODE_ENV$|TEST$)/i.test(name)) continue
    env[name] = value
  }
  return { ...env, CI: "1", NO_COLOR: "1", WRANGLER_SEND_METRICS: "false", ...extra }
}

export interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  readonly millis: number
}

/** Runs a command; a failure carries its output, so the test report says what went wrong. */
export const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: {
    readonly cwd: string
    readonly env?: Record<string, string>
    readonly timeoutMs?: number
    /** Answer a non-zero exit code instead of failing (a timeout still fails). */
    readonly allowExitCode?: boolean
  }
): Promise<Ran> => {
  const started = Date.now()
  return new Promise((resolve, reject) =>
    execFile(
      command,
      args,
      { cwd: options.cwd, env: cleanEnv(options.env), timeout: options.timeoutMs ?? 600_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = typeof error?.code === "number" ? error.code : 0
        if (error && !(options.allowExitCode === true && code !== 0 && !error.killed)) {
          reject(new Error(`${command} ${args.join(" ")} (in ${options.cwd}) failed: ${error.message}\n${stdout}\n${stderr}`))
        } else {
          resolve({ code, stdout, stderr, millis: Date.now() - started })
        }
      }
    ))
}
