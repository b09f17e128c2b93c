/**
 * A proxy in front of the emulator that sees every request of a cluster run: by body (how often
 * each distinct request was sent), with its status, when it was sent and answered, and the client's
 * port (so a test can tell which process sent it: see `clientPorts`).
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs"
import { createServer, request, type Server } from "node:http"
import type { Socket } from "node:net"

export interface Sent {
  /** `METHOD path body` */
  readonly key: string
  /** The client's TCP port. */
  readonly port: number
  readonly sentAt: number
  status?: number
  /** When the answer was passed on in full (undefined: never, e.g. the client died first). */
  answeredAt?: number
  /** The sending process, when it was one `track`ed by the proxy when it connected. */
  readonly pid?: number
}

export interface CountingProxy {
  readonly url: string
  readonly sent: Array<Sent>
  /**
   * Attribute the requests of process `pid` to it: each new connection is matched to a tracked
   * process as it is accepted, while the client is still alive and its socket open (looking at a
   * process's sockets from time to time misses connections opened and closed between two looks).
   */
  readonly track: (pid: number) => void
  /** The client ports of the connections open now (a dead client's close as the proxy reads their end). */
  readonly openPorts: () => Set<number>
  /** The client ports of every connection accepted so far. */
  readonly acceptedPorts: () => Set<number>
  /** The proxy's own port. */
  readonly port: number
  readonly close: () => Promise<void>
}

export const countingProxy = (target: string) =>
  new Promise<CountingProxy>((resolve) => {
    const to = new URL(target)
    const sent: Array<Sent> = []
    const tracked = new Set<number>()
    const owners = new WeakMap<Socket, number>()
    const server: Server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const one: Sent = {
          key: `${req.method} ${req.url} ${Buffer.concat(chunks).toString()}`,
          port: req.socket.remotePort ?? 0,
          sentAt: Date.now(),
          pid: owners.get(req.socket)
        }
        sent.push(one)
        res.on("finish", () => {
          one.status = res.statusCode
          one.answeredAt = Date.now()
        })
      })
      const out = request(
        { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        }
      )
      out.on("error", () => res.destroy())
      req.pipe(out)
    })
    const open = new Set<Socket>()
    const accepted = new Set<number>()
    server.on("connection", (socket: Socket) => {
      open.add(socket)
      accepted.add(socket.remotePort ?? 0)
      socket.on("close", () => open.delete(socket))
      if (tracked.size === 0 || socket.remotePort === undefined) return
      const pid = ownerOf(socket.remotePort, socket.localPort ?? 0, tracked)
      if (pid !== undefined) owners.set(socket, pid)
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({
        url: `http://127.0.0.1:${port}`,
        sent,
        track: (pid) => void tracked.add(pid),
        openPorts: () => new Set([...open].map((s) => s.remotePort ?? 0)),
        acceptedPorts: () => new Set(accepted),
        port,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

/** The answer requests (POSTs; a GET is a process's probe of the endpoint). */
export const posts = (sent: ReadonlyArray<Sent>) => sent.filter((s) => s.key.startsWith("POST"))

/** How many requests were sent more than once, counting each extra copy. */
export const paidTwice = (sent: ReadonlyArray<Sent>) => {
  const seen = new Map<string, number>()
  for (const s of posts(sent)) seen.set(s.key, (seen.get(s.key) ?? 0) + 1)
  let extra = 0
  for (const n of seen.values()) extra += n - 1
  return extra
}

/** The rows of the kernel's TCP tables (IPv4 and IPv6), each split into its columns. */
const tcpRows = (): Array<Array<string>> => {
  const rows: Array<Array<string>> = []
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    try {
      for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
        const cols = line.trim().split(/\s+/)
        if (cols.length > 9) rows.push(cols)
      }
    } catch {
      // No such table here.
    }
  }
  return rows
}
/** The port of an `address:port` column (hex). */
const portOf = (column: string) => parseInt(column.split(":")[1]!, 16)

/**
 * The local TCP ports of process `pid`'s open sockets (Linux: its fds name socket inodes, and
 * /proc/net/tcp maps inodes to ports), so requests the proxy saw can be told apart by process.
 */
export const clientPorts = (pid: number, toPort?: number): Set<number> => {
  const inodes = socketInodes(pid)
  const ports = new Set<number>()
  for (const cols of tcpRows()) {
    if (!inodes.has(cols[9]!)) continue
    // `toPort`: only its connections to that port (e.g. the proxy's, not PostgreSQL's).
    if (toPort === undefined || portOf(cols[2]!) === toPort) ports.add(portOf(cols[1]!))
  }
  return ports
}

/** The socket inodes among process `pid`'s fds (empty once it is gone). */
const socketInodes = (pid: number): Set<string> => {
  const inodes = new Set<string>()
  let fds: Array<string>
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return inodes
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (m) inodes.add(m[1]!)
    } catch {
      // The fd closed while listed.
    }
  }
  return inodes
}

/**
 * Which of `pids` holds the loopback socket from local port `port` to `to` (a client's end). Both
 * ends count: Linux reuses an ephemeral port for connections to other destinations, so a
 * PostgreSQL connection of another process may have the same local port.
 */
const ownerOf = (port: number, to: number, pids: ReadonlySet<number>): number | undefined => {
  const inodes = new Set(
    tcpRows().flatMap((cols) => (portOf(cols[1]!) === port && portOf(cols[2]!) === to ? [cols[9]!] : []))
  )
  for (const pid of pids) for (const inode of socketInodes(pid)) if (inodes.has(inode)) return pid
  return undefined
}
