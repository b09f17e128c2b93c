/**
 * A throwaway PostgreSQL for tests: a fresh cluster in a temporary directory, started on a free
 * loopback port with password authentication (so tests see a real password in the URL, and a
 * wrong one refused), stopped and removed by `stop`. Uses the machine's PostgreSQL binaries
 * (scripts/ensure-postgres.sh installs Debian's package when they are missing); `initdb` refuses
 * to run as root, so as root the cluster belongs to the `postgres` user.
 */
import { execFile } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { promisify } from "node:util"

const run = promisify(execFile)

export interface ThrowawayPostgres {
  /** `postgres://svc:<password>@127.0.0.1:<port>/postgres` */
  readonly url: string
  readonly password: string
  readonly port: number
  /** A URL to a fresh database of its own in this cluster (tests that must not see each other's rows). */
  readonly database: (name: string) => Promise<string>
  readonly stop: () => Promise<void>
}

/** The directory holding initdb and pg_ctl: PATH's, else the newest /usr/lib/postgresql/N/bin. */
const binDir = (): string => {
  for (const d of (process.env.PATH ?? "").split(":"))
    if (d !== "" && existsSync(join(d, "initdb")) && existsSync(join(d, "pg_ctl"))) return d
  const root = "/usr/lib/postgresql"
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : []
  if (versions[0] === undefined)
    throw new Error("PostgreSQL is not installed (initdb, pg_ctl): run scripts/ensure-postgres.sh")
  return join(root, versions[0], "bin")
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject()))
    })
  })

export const startPostgres = async (): Promise<ThrowawayPostgres> => {
  const bin = binDir()
  const asRoot = process.getuid?.() === 0
  const dir = mkdtempSync(join(tmpdir(), "svc-pg-"))
  const data = join(dir, "data")
  const password = `pw-${Math.random().toString(36).slice(2)}`
  writeFileSync(join(dir, "pwfile"), `${password}\n`)
  // As root, the server runs as `postgres`: it must own its directory and reach it through the
  // test's temporary root (traverse only: o+x, nothing listed).
  const as = async (cmd: string, args: ReadonlyArray<string>) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, cmd), ...args]) : run(join(bin, cmd), [...args])
  if (asRoot) {
    const id = async (flag: string) => Number((await run("id", [flag, "postgres"])).stdout.trim())
    const [uid, gid] = [await id("-u"), await id("-g")]
    for (let d = dir; d !== dirname(d); d = dirname(d)) {
      const st = statSync(d)
      if ((st.mode & 0o001) === 0 && st.uid === process.getuid?.()) chmodSync(d, (st.mode & 0o777) | 0o001)
    }
    chownSync(dir, uid, gid)
    chownSync(join(dir, "pwfile"), uid, gid)
  }
  await as("initdb", [
    "-D",
    data,
    "-U",
    "svc",
    "-A",
    "scram-sha-256",
    `--pwfile=${join(dir, "pwfile")}`,
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
    "--no-instructions"
  ])
  let port = 0
  for (let attempt = 0; ; attempt++) {
    port = await freePort()
    try {
      await as("pg_ctl", [
        "-D",
        data,
        "-l",
        join(dir, "server.log"),
        "-o",
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`,
        "-w",
        "start"
      ])
      break
    } catch (e) {
      // Another process took the port between the probe and the start: try another.
      if (attempt >= 2) throw e
    }
  }
  const url = `postgres://svc:${password}@127.0.0.1:${port}/postgres`
  const database = async (name: string) => {
    const pg = (await import("pg")).default
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`)
    } finally {
      await client.end()
    }
    return `postgres://svc:${password}@127.0.0.1:${port}/${encodeURIComponent(name)}`
  }
  const stop = async () => {
    await as("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined)
    rmSync(dir, { recursive: true, force: true })
  }
  return { url, password, port, database, stop }
}
