import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Pg from "pg"

/**
 * A throwaway PostgreSQL server for tests: `initdb` in a temporary folder, the
 * server on a free port of 127.0.0.1, databases created on demand, everything
 * stopped and removed by `dispose()` (and, failing that, when the process exits).
 *
 * It needs Debian's `postgresql` package (binaries under /usr/lib/postgresql/<v>/bin,
 * or set HOOKGATE_PG_BIN). PostgreSQL refuses to run as root, so under root the
 * cluster belongs to an unprivileged user, `hookgate-pg`, created when missing.
 * Durability is switched off (fsync, synchronous_commit): a test cluster trades it for speed.
 */
export class PgTestServer {
  private child: ChildProcess | undefined
  private log: Array<string> = []
  private databases = 0
  private maxConnections = 200
  private readonly onExit = () => this.killNow()

  private constructor(
    private readonly bin: string,
    private readonly dir: string,
    private readonly owner: { readonly uid: number; readonly gid: number } | undefined,
    readonly port: number
  ) {}

  /** Creates the cluster and starts it. */
  static async start(options: { readonly maxConnections?: number } = {}): Promise<PgTestServer> {
    const bin = postgresBin()
    const owner = unprivilegedOwner()
    const dir = mkdtempSync(join(tmpdir(), "hookgate-pg-"))
    const server = new PgTestServer(bin, dir, owner, await freePort())
    process.once("exit", server.onExit)
    try {
      if (owner !== undefined) chownSync(dir, owner.uid, owner.gid)
      await server.run("initdb", ["-D", server.dataDir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"])
      await server.startServer(options.maxConnections ?? 200)
      return server
    } catch (error) {
      await server.dispose()
      throw error
    }
  }

  private get dataDir() {
    return join(this.dir, "data")
  }

  /** A connection URL for `database` (trust authentication: no password). */
  url(database = "postgres"): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`
  }

  /** Creates a fresh, empty database and answers its URL. */
  async createDatabase(prefix = "t"): Promise<string> {
    const name = `${prefix}_${++this.databases}`
    await this.admin((client) => client.query(`CREATE DATABASE "${name}"`))
    return this.url(name)
  }

  /** Runs `f` with a client connected to the `postgres` database. */
  async admin<A>(f: (client: Pg.Client) => Promise<A>): Promise<A> {
    const client = new Pg.Client({ connectionString: this.url() })
    await client.connect()
    try {
      return await f(client)
    } finally {
      await client.end()
    }
  }

  /** Stops the server (fast shutdown: open connections are cut) and keeps its data. */
  async stop(): Promise<void> {
    const child = this.child
    if (child === undefined) return
    this.child = undefined
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
    child.kill("SIGINT")
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
    await exited
    clearTimeout(timer)
  }

  /** Starts the server again on the same port and data (after `stop`). */
  async restart(): Promise<void> {
    await this.startServer(this.maxConnections)
  }

  /** Stops the server and removes its folder. Safe to call twice. */
  async dispose(): Promise<void> {
    await this.stop()
    process.removeListener("exit", this.onExit)
    rmSync(this.dir, { recursive: true, force: true })
  }

  private async startServer(maxConnections: number) {
    this.maxConnections = maxConnections
    this.log = []
    const settings = {
      port: String(this.port),
      listen_addresses: "127.0.0.1",
      unix_socket_directories: this.dir,
      max_connections: String(maxConnections),
      fsync: "off",
      synchronous_commit: "off",
      full_page_writes: "off",
      shared_buffers: "32MB"
    }
    const args = ["-D", this.dataDir, ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`])]
    const child = spawn(join(this.bin, "postgres"), args, { ...this.owner, stdio: ["ignore", "pipe", "pipe"] })
    this.child = child
    const keep = (chunk: Buffer) => {
      this.log.push(chunk.toString())
      if (this.log.length > 50) this.log.shift()
    }
    child.stdout!.on("data", keep)
    child.stderr!.on("data", keep)
    const deadline = Date.now() + 30_000
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`postgres exited (${child.exitCode ?? child.signalCode}):\n${this.log.join("")}`)
      }
      try {
        await this.admin((client) => client.query("SELECT 1"))
        return
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`postgres did not accept connections in 30 s:\n${this.log.join("")}`, { cause: error })
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
  }

  private run(tool: string, args: ReadonlyArray<string>) {
    return new Promise<void>((resolve, reject) => {
      const child = spawn(join(this.bin, tool), args, { ...this.owner, stdio: ["ignore", "pipe", "pipe"] })
      let output = ""
      child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
      child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
      child.on("error", reject)
      child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${tool} exited with ${code}:\n${output}`))))
    })
  }

  /** On process exit (a failed run that never reached `dispose`): kill and remove, synchronously. */
  private killNow() {
    this.child?.kill("SIGKILL")
    try {
      rmSync(this.dir, { recursive: true, force: true })
    } catch {
      // the server may still hold files for an instant; the OS temp cleaner gets the rest
    }
  }
}

/** The newest installed PostgreSQL's binaries (or HOOKGATE_PG_BIN). */
const postgresBin = (): string => {
  const configured = process.env["HOOKGATE_PG_BIN"]
  if (configured !== undefined && configured !== "") return configured
  const root = "/usr/lib/postgresql"
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "postgres"))).sort((a, b) => Number(b) - Number(a))
    : []
  if (versions[0] === undefined) {
    throw new Error("PostgreSQL is not installed: apt-get install -y postgresql (or set HOOKGATE_PG_BIN)")
  }
  return join(root, versions[0], "bin")
}

const PG_USER = "hookgate-pg"

/** Under root, the uid and gid of `hookgate-pg` (created when missing); otherwise the current user runs the server. */
const unprivilegedOwner = (): { uid: number; gid: number } | undefined => {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag: string) => Number(execFileSync("id", [flag, PG_USER], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim())
  try {
    return { uid: id("-u"), gid: id("-g") }
  } catch {
    try {
      execFileSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER], { stdio: "ignore" })
    } catch {
      // another test file created it in the meantime
    }
    return { uid: id("-u"), gid: id("-g") }
  }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
