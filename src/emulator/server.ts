/**
 * The emulator's HTTP server. Plain node:http rather than @effect/platform's server: fault drills
 * need the socket itself (connection resets, streams cut mid-body), body limits are counted in
 * bytes as they arrive, and the hot path stays allocation-light for the 2,000 requests/s target.
 * Handlers are pure functions of the body (handlers.ts); this file is routing, auth, limits,
 * rate limiting, faults and writing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { bodyLimitFor } from "../service/limits.ts"
import { makeFaults } from "./faults.ts"
import { knobValue } from "./knobs.ts"
import { answerFingerprint, EmulatorHeader } from "./identity.ts"
import { INVALID_JSON, makeHandlers, rateKey, type Reply } from "./handlers.ts"
import { fnv1a } from "./hash.ts"
import type { DrainLimits, EmulatorOptions, FaultKind } from "./options.ts"
import { makeRateLimiter } from "./rate-limit.ts"

export interface RunningEmulator {
  /** e.g. http://127.0.0.1:8787 */
  readonly url: string
  readonly port: number
  readonly close: () => Promise<void>
}

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers
  })
  res.end(text)
}

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : Promise.resolve())

/**
 * How much of a refused body (401, 404, 413) the server reads and discards before it answers, and
 * for how long. A server that answers and closes while the client is still sending makes the
 * client's next write fail (EPIPE/ECONNRESET) and its kernel drop the unread answer, so clients see
 * a broken pipe instead of the status. Past either cap the server answers anyway, half-closes, and
 * keeps reading (discarding) for up to `lingerMs` before it closes, as nginx's lingering close does.
 */
export const DefaultDrain: DrainLimits = { bytes: 64 * 1024 * 1024, ms: 10_000, lingerMs: 5_000 }

/**
 * After the answer: send FIN but keep reading what the client still sends, until it closes its side
 * or `lingerMs` passes. Replaces the socket's `destroySoon`, which node:http calls after a
 * `connection: close` answer and which would otherwise reset the connection while data arrives.
 */
const lingerOnClose = (socket: Socket, lingerMs: number) => {
  socket.destroySoon = function (this: Socket) {
    const timer = setTimeout(() => this.destroy(), lingerMs)
    timer.unref()
    this.once("close", () => clearTimeout(timer))
    this.once("end", () => this.destroy())
    this.on("data", () => undefined)
    this.end()
    this.resume()
  }
}

/**
 * Answers a request whose body is not wanted: once the body has been read and discarded (so the
 * answer reaches every client), or at once with `connection: close` and a lingering close when the
 * body goes past the drain caps or the client waits for `100 Continue`.
 */
const refuse = (
  req: IncomingMessage,
  res: ServerResponse,
  drain: DrainLimits,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  already = 0
): Promise<void> =>
  new Promise((resolve) => {
    const answerNow = () => {
      lingerOnClose(req.socket, drain.lingerMs)
      sendJson(res, status, body, { ...headers, connection: "close" })
      resolve()
    }
    if (req.complete) {
      sendJson(res, status, body, headers)
      return resolve()
    }
    if (awaitsContinue(req)) return answerNow()
    let size = already
    let done = false
    const finish = (answer: () => void) => {
      if (done) return
      done = true
      clearTimeout(timer)
      req.off("data", onData)
      req.off("end", onEnd)
      answer()
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > drain.bytes) finish(answerNow)
    }
    const onEnd = () =>
      finish(() => {
        sendJson(res, status, body, headers)
        resolve()
      })
    const timer = setTimeout(() => finish(answerNow), drain.ms)
    req.on("data", onData)
    req.on("end", onEnd)
    // The client gave up (or the emulator is closing): nobody to answer.
    req.on("error", () => finish(resolve))
    req.on("close", () => finish(resolve))
    req.resume()
  })

/** A request sent with `Expect: 100-continue` whose `100 Continue` has not been written. */
const continueAwaited = new WeakSet<IncomingMessage>()
const awaitsContinue = (req: IncomingMessage) => continueAwaited.has(req)

const tooLargeMessage = (limit: number) => ({
  message: `Payload Too Large: the request body limit of this endpoint is ${limit} bytes`
})

/** Reads the body; past `limit` bytes, discards the rest (drain caps), answers 413 and returns undefined. */
const readBody = (
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  drain: DrainLimits
): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? NaN)
    if (declared > limit) return refuse(req, res, drain, 413, tooLargeMessage(limit)).then(() => resolve(undefined))
    const parts: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        req.off("data", onData)
        req.off("end", onEnd)
        req.pause()
        refuse(req, res, drain, 413, tooLargeMessage(limit), {}, size).then(() => resolve(undefined))
      } else parts.push(chunk)
    }
    const onEnd = () => resolve(parts.length === 1 ? parts[0]! : Buffer.concat(parts))
    req.on("data", onData)
    req.on("end", onEnd)
    req.on("error", reject)
  })

export const startEmulator = (options: EmulatorOptions = {}): Promise<RunningEmulator> => {
  const limiter = makeRateLimiter(options)
  const faults = makeFaults(options)
  const sockets = new Set<Socket>()
  const drain = { ...DefaultDrain, ...options.drain }
  const handlers = makeHandlers({ nonconformingRate: knobValue(options, "nonconformingRate") })

  const log = (
    req: IncomingMessage,
    path: string,
    model: string | undefined,
    status: number,
    body: Buffer | undefined,
    fault: FaultKind | undefined
  ) => {
    options.onRequest?.({
      method: req.method ?? "",
      path,
      model,
      status,
      bodyHash: body === undefined ? "" : fnv1a(body.toString("utf8")).toString(16),
      fault
    })
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0]!
    const handler = handlers[path]
    if (req.method !== "POST" || handler === undefined) {
      await refuse(req, res, drain, 404, { message: `Not Found: ${req.method} ${path}` })
      return log(req, path, undefined, 404, undefined, undefined)
    }
    const auth = req.headers.authorization ?? ""
    const token = auth.startsWith("Bearer ") ? auth.slice(7).trim() : ""
    if (token === "" || (options.apiKey !== undefined && token !== options.apiKey)) {
      await refuse(req, res, drain, 401, { message: "Unauthorized: missing or invalid API key" })
      return log(req, path, undefined, 401, undefined, undefined)
    }
    const declared = Number(req.headers["content-length"] ?? NaN)
    if (awaitsContinue(req)) {
      if (declared > bodyLimitFor(path)) {
        await refuse(req, res, drain, 413, tooLargeMessage(bodyLimitFor(path)))
        return log(req, path, undefined, 413, undefined, undefined)
      }
      continueAwaited.delete(req)
      res.writeContinue()
    }
    const body = await readBody(req, res, bodyLimitFor(path), drain)
    if (body === undefined) return log(req, path, undefined, 413, undefined, undefined)

    let json: unknown
    try {
      json = JSON.parse(body.toString("utf8"))
    } catch {
      sendJson(res, 400, {
        message: path === "/v1/chat/completions" ? INVALID_JSON : "Bad Request: body is not valid JSON"
      })
      return log(req, path, undefined, 400, body, undefined)
    }
    const model = rateKey(path, json)
    const streaming = typeof json === "object" && json !== null && (json as { stream?: unknown }).stream === true
    const plan = faults(streaming)

    const decision = model === undefined ? undefined : limiter(model)
    if (decision !== undefined && !decision.allowed) {
      sendJson(
        res,
        429,
        { message: `Too Many Requests: the limit of ${decision.rpm} requests per minute for ${model} is exceeded` },
        { "retry-after": String(decision.retryAfterSeconds) }
      )
      return log(req, path, model, 429, body, undefined)
    }
    if (plan.fault === "reset") {
      await sleep(plan.delayMs)
      req.socket.destroy()
      return log(req, path, model, 0, body, "reset")
    }
    if (plan.fault === "500" || plan.fault === "503") {
      await sleep(plan.delayMs)
      const status = Number(plan.fault)
      sendJson(res, status, {
        message:
          status === 500
            ? "Internal Server Error (emulated fault)"
            : "Service Unavailable: maintenance (emulated fault)"
      })
      return log(req, path, model, status, body, plan.fault)
    }

    const reply: Reply = handler(json)
    await sleep(plan.delayMs)
    if (reply.kind === "json") {
      sendJson(res, reply.status, reply.body)
      return log(req, path, model, reply.status, body, plan.fault)
    }
    // No `connection` header of its own: Node answers keep-alive, or `close` (and closes after the
    // last event) when the client asked for it.
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    const cutAt = plan.fault === "cut" ? Math.max(1, Math.floor(reply.events.length / 2)) : -1
    for (let i = 0; i < reply.events.length; i++) {
      if (i === cutAt) {
        // Cut after HTTP 200 (§4.1 rule 6): let what was written reach the client first.
        await new Promise<void>((flushed) => res.write("", () => flushed()))
        if (plan.cutByReset) req.socket.destroy()
        else res.end()
        return log(req, path, model, 200, body, "cut")
      }
      res.write(`data: ${JSON.stringify(reply.events[i])}\n\n`)
    }
    res.end("data: [DONE]\n\n")
    return log(req, path, model, 200, body, plan.fault)
  }

  const identity = options.identify === true ? answerFingerprint(options) : undefined
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    // On every answer (404, 401, 429 and faults too): a probe needs neither a route nor the key.
    if (identity !== undefined) res.setHeader(EmulatorHeader, identity)
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { message: `Internal Server Error: ${(error as Error).message}` })
      else res.destroy()
    })
  }
  const server = createServer(onRequest)
  // `Expect: 100-continue`: 100 only once path, key and declared length pass; else the final status.
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    continueAwaited.add(req)
    onRequest(req, res)
  })
  server.keepAliveTimeout = 30_000
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })

  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      const address = server.address() as AddressInfo
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address
      resolve({
        url: `http://${host}:${address.port}`,
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy()
            server.close(() => done())
          })
      })
    })
  })
}
