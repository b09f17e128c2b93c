/** The emulator's HTTP surface over raw HTTP: routes, auth, body limits, errors, rate limit, faults. */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { Readable } from "node:stream"
import { request as undiciRequest } from "undici"
import { startEmulator, type RunningEmulator } from "../../src/emulator/server.ts"
import { chatBody, emulatorFor, KEY, post, requestLog } from "../helpers.ts"

describe("emulator HTTP surface", () => {
  let emu: RunningEmulator
  beforeAll(async () => {
    emu = await emulatorFor()
  })
  afterAll(() => emu.close())

  it("binds loopback and answers unknown paths and methods with 404 and a {message}", async () => {
    expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const r = await post(emu, "/v1/nope", {})
    expect(r.status).toBe(404)
    expect(typeof r.json.message).toBe("string")
    const get = await fetch(`${emu.url}/v1/chat/completions`, { headers: { authorization: `Bearer ${KEY}` } })
    expect(get.status).toBe(404)
    expect(((await get.json()) as { message: string }).message).toContain("Not Found")
  })

  it("answers 401 with a {message} for a missing, malformed or wrong key", async () => {
    for (const auth of [null, KEY, "Bearer wrong", "Basic abc", "Bearer "]) {
      const r = await post(
        emu,
        "/v1/embeddings",
        { model: "svc3-embedding", input: "x", task_type: "CLUSTERING" },
        auth
      )
      expect(r.status, String(auth)).toBe(401)
      expect(r.json.message).toMatch(/Unauthorized/)
    }
  })

  it("without a configured key accepts any non-empty bearer token, still 401 without one", async () => {
    const open = await startEmulator({})
    try {
      expect(
        (await post(open, "/v1/translate", { text: "hi", source_lang: "en", target_lang: "ja" }, "Bearer anything"))
          .status
      ).toBe(200)
      expect(
        (await post(open, "/v1/translate", { text: "hi", source_lang: "en", target_lang: "ja" }, null)).status
      ).toBe(401)
    } finally {
      await open.close()
    }
  })

  it("answers 413 above 4 MiB for chat, embeddings and rerank, and above 1 MiB for translate", async () => {
    const big = "a".repeat(4 * 1024 * 1024)
    for (const path of ["/v1/chat/completions", "/v1/embeddings", "/v1/rerank"]) {
      const r = await post(emu, path, { model: "svc3-mini", input: big })
      expect(r.status, path).toBe(413)
      expect(r.json.message).toMatch(/Payload Too Large/)
    }
    const justUnder = { text: "a".repeat(1024 * 1024 - 100), source_lang: "en", target_lang: "ja" }
    // Under 1 MiB passes the body limit (and then fails the 5,000 code point rule with 400).
    expect((await post(emu, "/v1/translate", justUnder)).status).toBe(400)
    const over = { text: "a".repeat(1024 * 1024), source_lang: "en", target_lang: "ja" }
    expect((await post(emu, "/v1/translate", over)).status).toBe(413)
  })

  it("answers malformed JSON with 400: chat's exact message, a {message} elsewhere", async () => {
    const chat = await post(emu, "/v1/chat/completions", "{not json")
    expect(chat.status).toBe(400)
    expect(chat.json).toEqual({ message: "Invalid JSON or disallowed fields" })
    for (const path of ["/v1/rerank", "/v1/embeddings", "/v1/translate"]) {
      const r = await post(emu, path, "[1,")
      expect(r.status).toBe(400)
      expect(typeof r.json.message).toBe("string")
    }
  })
  it("ends a streamed answer's connection right after data: [DONE] when the client sends Connection: close", async () => {
    const body = JSON.stringify(chatBody("stream this answer and close", { stream: true }))
    const { text, lingered } = await new Promise<{ text: string; lingered: number }>((resolve) => {
      const s = connect({ port: emu.port, host: "127.0.0.1" })
      let got = ""
      let doneAt = 0
      s.on("data", (d: Buffer) => {
        got += d.toString("utf8")
        if (doneAt === 0 && got.includes("data: [DONE]")) doneAt = Date.now()
      })
      // A client that reads to the end of the connection: done when the server closes it. Written,
      // not ended: the client keeps its side open, as HTTP clients do.
      const finish = () => {
        clearTimeout(giveUp)
        s.destroy()
        resolve({ text: got, lingered: Date.now() - doneAt })
      }
      // Without the fix the server holds the connection for its 30 s keep-alive timeout.
      const giveUp = setTimeout(finish, 5_000)
      s.on("end", finish)
      s.write(
        `POST /v1/chat/completions HTTP/1.1\r\nhost: emu\r\nauthorization: Bearer ${KEY}\r\n` +
          `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
      )
    })
    expect(text).toMatch(/^HTTP\/1\.1 200/)
    expect(text).toMatch(/\r\nconnection: close\r\n/i)
    expect(text).toContain("data: [DONE]")
    expect(lingered).toBeLessThan(1_000)
  })
})

describe("emulator rate limit", () => {
  it("answers 429 with Retry-After past the per-model requests per minute, other models unaffected", async () => {
    const emu = await emulatorFor({ rpm: { "svc3-mini": 60, "*": 6000 }, burst: 2 })
    try {
      const statuses: Array<number> = []
      let retryAfter: string | null = null
      for (let i = 0; i < 4; i++) {
        const r = await post(emu, "/v1/chat/completions", chatBody(`hello ${i}`))
        statuses.push(r.status)
        if (r.status === 429) {
          retryAfter = r.headers.get("retry-after")
          expect(r.json.message).toMatch(/Too Many Requests/)
        }
      }
      expect(statuses.slice(0, 2)).toEqual([200, 200])
      expect(statuses.slice(2)).toEqual([429, 429])
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1)
      const other = await post(emu, "/v1/embeddings", { model: "svc3-embedding", input: "x", task_type: "CLUSTERING" })
      expect(other.status).toBe(200)
    } finally {
      await emu.close()
    }
  })
})

describe("emulator faults", () => {
  it("injects 500, 503 and resets at the configured rates, reproducibly for a seed", async () => {
    const run = async () => {
      const log = requestLog()
      const emu = await emulatorFor({
        error500Rate: 0.2,
        error503Rate: 0.2,
        resetRate: 0.2,
        faultSeed: 42,
        onRequest: log.onRequest
      })
      const outcomes: Array<string> = []
      try {
        for (let i = 0; i < 60; i++) {
          try {
            outcomes.push(
              String(
                (await post(emu, "/v1/translate", { text: `t ${i}`, source_lang: "en", target_lang: "ja" })).status
              )
            )
          } catch {
            outcomes.push("reset")
          }
        }
      } finally {
        await emu.close()
      }
      return { outcomes, log: log.entries }
    }
    const a = await run()
    const b = await run()
    expect(a.outcomes).toEqual(b.outcomes)
    for (const kind of ["200", "500", "503", "reset"]) expect(a.outcomes).toContain(kind)
    expect(a.log.filter((e) => e.fault === "reset")).toHaveLength(a.outcomes.filter((o) => o === "reset").length)
  })

  it("adds latency with jitter and slow answers", async () => {
    const emu = await emulatorFor({ latencyMs: 80, jitterMs: 20 })
    try {
      const t0 = performance.now()
      await post(emu, "/v1/translate", { text: "hi", source_lang: "en", target_lang: "ja" })
      const took = performance.now() - t0
      expect(took).toBeGreaterThanOrEqual(55)
    } finally {
      await emu.close()
    }
    const slow = await emulatorFor({ slowRate: 1, slowMs: 300 })
    try {
      const t0 = performance.now()
      await post(slow, "/v1/translate", { text: "hi", source_lang: "en", target_lang: "ja" })
      expect(performance.now() - t0).toBeGreaterThanOrEqual(280)
    } finally {
      await slow.close()
    }
  })

  it("cuts streams before data: [DONE]", async () => {
    const emu = await emulatorFor({ cutStreamRate: 1, faultSeed: 3 })
    try {
      let cut = 0
      for (let i = 0; i < 6; i++) {
        try {
          const r = await post(emu, "/v1/chat/completions", chatBody(`stream ${i}`, { stream: true }))
          expect(r.status).toBe(200)
          expect(r.text).not.toContain("[DONE]")
          cut++
        } catch {
          cut++ // reset mid-body: fetch reports the broken connection
        }
      }
      expect(cut).toBe(6)
      // Non-streaming requests are never "cut".
      expect((await post(emu, "/v1/chat/completions", chatBody("plain"))).status).toBe(200)
    } finally {
      await emu.close()
    }
  })
})

/** Raw-socket and client-library calls for refused bodies (401, 404, 413) that are still being sent. */
const bigBody = JSON.stringify({
  model: "svc3-embedding",
  input: "a".repeat(4 * 1024 * 1024 + 64),
  task_type: "CLUSTERING"
})

/** The body in 256 KiB pieces, 5 ms apart: a client on a real network is still sending when refused. */
async function* paced(body: string): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(body)
  for (let at = 0; at < bytes.length; at += 256 * 1024) {
    yield bytes.subarray(at, at + 256 * 1024)
    await new Promise((r) => setTimeout(r, 5))
  }
}

/** node:http with `connection: close` (what Python's urllib sends): the status, or the error code. */
const viaNodeHttp = (emu: RunningEmulator, path: string, auth: string, body: string) =>
  new Promise<string>((resolve) => {
    const r = httpRequest(
      emu.url + path,
      {
        method: "POST",
        headers: {
          authorization: auth,
          connection: "close",
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body)
        }
      },
      (res) => {
        res.resume()
        res.on("end", () => resolve(String(res.statusCode)))
      }
    )
    r.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message))
    void (async () => {
      for await (const piece of paced(body)) if (!r.destroyed) r.write(piece)
      r.end()
    })()
  })

const viaUndici = async (emu: RunningEmulator, path: string, auth: string, body: string) => {
  try {
    const r = await undiciRequest(emu.url + path, {
      method: "POST",
      headers: { authorization: auth, "content-length": String(Buffer.byteLength(body)) },
      body: Readable.from(paced(body))
    })
    await r.body.text()
    return String(r.statusCode)
  } catch (e) {
    return String((e as NodeJS.ErrnoException).code ?? e)
  }
}

const viaFetch = async (emu: RunningEmulator, path: string, auth: string, body: string) => {
  try {
    const r = await fetch(emu.url + path, {
      method: "POST",
      headers: { authorization: auth },
      body: ReadableStream.from(paced(body)),
      duplex: "half"
    } as RequestInit)
    await r.text()
    return String(r.status)
  } catch (e) {
    return String(((e as Error).cause as NodeJS.ErrnoException | undefined)?.code ?? e)
  }
}

/**
 * A client that writes `size` body bytes in `chunk`-byte pieces every `everyMs`, reading meanwhile;
 * with `expectContinue` it waits `waitMs` for an interim answer first. Resolves with the status
 * lines it read (interim and final), or the socket error that ended it.
 */
const slowWriter = (
  emu: RunningEmulator,
  o: {
    path: string
    auth: string
    size: number
    chunk: number
    everyMs: number
    expectContinue?: boolean
    waitMs?: number
  }
) =>
  new Promise<{ statuses: Array<number>; error?: string; sent: number }>((resolve) => {
    const s = connect({ port: emu.port, host: "127.0.0.1", allowHalfOpen: true })
    let got = ""
    let sent = 0
    const statuses = () => [...got.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]))
    s.on("data", (d: Buffer) => {
      got += d.toString("latin1")
      // Like curl: a final status before the body is sent means the body is not sent.
      if (o.expectContinue && sent === 0 && statuses().some((x) => x >= 200)) s.end()
    })
    s.on("error", (e: NodeJS.ErrnoException) => resolve({ statuses: statuses(), error: e.code ?? e.message, sent }))
    s.on("close", () => resolve({ statuses: statuses(), sent }))
    s.write(
      `POST ${o.path} HTTP/1.1\r\nhost: emu\r\nauthorization: ${o.auth}\r\ncontent-type: application/json\r\n` +
        `content-length: ${o.size}\r\nconnection: close\r\n${o.expectContinue ? "expect: 100-continue\r\n" : ""}\r\n`
    )
    const tick = () => {
      if (sent >= o.size || s.writableEnded || s.destroyed) return
      const n = Math.min(o.chunk, o.size - sent)
      s.write(Buffer.alloc(n, 0x61))
      sent += n
      if (sent >= o.size) s.end()
      else setTimeout(tick, o.everyMs)
    }
    setTimeout(tick, o.expectContinue ? (o.waitMs ?? 300) : 0)
  })

describe("emulator refusals reach clients still sending a body", () => {
  let emu: RunningEmulator
  beforeAll(async () => {
    emu = await emulatorFor()
  })
  afterAll(() => emu.close())

  const cases = [
    { want: "413", path: "/v1/embeddings", auth: `Bearer ${KEY}` },
    { want: "401", path: "/v1/embeddings", auth: "Bearer wrong" },
    { want: "404", path: "/v1/nope", auth: `Bearer ${KEY}` }
  ]

  it("answers 413, 401 and 404 to node:http with connection: close, not a broken pipe", async () => {
    for (const c of cases)
      for (let i = 0; i < 3; i++) expect(await viaNodeHttp(emu, c.path, c.auth, bigBody), c.want).toBe(c.want)
  })

  it("answers 413, 401 and 404 to undici and fetch", async () => {
    for (const c of cases) {
      for (let i = 0; i < 3; i++) {
        expect(await viaUndici(emu, c.path, c.auth, bigBody), `undici ${c.want}`).toBe(c.want)
        expect(await viaFetch(emu, c.path, c.auth, bigBody), `fetch ${c.want}`).toBe(c.want)
      }
    }
  })

  it("answers 413 to a translate body over 1 MiB sent with connection: close", async () => {
    const body = JSON.stringify({ text: "a".repeat(2 * 1024 * 1024), source_lang: "en", target_lang: "ja" })
    for (let i = 0; i < 3; i++) expect(await viaNodeHttp(emu, "/v1/translate", `Bearer ${KEY}`, body)).toBe("413")
  })

  it("answers a slow writer's too-large body with 413 after reading it, without resetting the connection", async () => {
    const r = await slowWriter(emu, {
      path: "/v1/chat/completions",
      auth: `Bearer ${KEY}`,
      size: 5 * 1024 * 1024,
      chunk: 256 * 1024,
      everyMs: 10
    })
    expect(r).toEqual({ statuses: [413], sent: 5 * 1024 * 1024 })
  })

  it("answers a slow writer's 401 and 404 without resetting the connection", async () => {
    for (const c of cases.slice(1)) {
      const r = await slowWriter(emu, {
        path: c.path,
        auth: c.auth,
        size: 2 * 1024 * 1024,
        chunk: 256 * 1024,
        everyMs: 10
      })
      expect(r.statuses, c.want).toEqual([Number(c.want)])
      expect(r.error).toBeUndefined()
    }
  })

  it("answers Expect: 100-continue with 413 (not 100) when the declared length is over the limit", async () => {
    const r = await slowWriter(emu, {
      path: "/v1/embeddings",
      auth: `Bearer ${KEY}`,
      size: 5 * 1024 * 1024,
      chunk: 256 * 1024,
      everyMs: 10,
      expectContinue: true
    })
    expect(r).toEqual({ statuses: [413], sent: 0 })
  })

  it("answers Expect: 100-continue with 401 for a wrong key and 404 for an unknown path", async () => {
    for (const c of cases.slice(1)) {
      const r = await slowWriter(emu, {
        path: c.path,
        auth: c.auth,
        size: 1000,
        chunk: 1000,
        everyMs: 10,
        expectContinue: true
      })
      expect(r.statuses, c.want).toEqual([Number(c.want)])
    }
  })

  it("answers Expect: 100-continue with 100 and then the answer when the request passes", async () => {
    const body = JSON.stringify({ text: "hello", source_lang: "en", target_lang: "ja" })
    const r = await new Promise<string>((resolve) => {
      const s = connect({ port: emu.port, host: "127.0.0.1" })
      let got = ""
      s.on("data", (d: Buffer) => {
        got += d.toString("utf8")
        if (got.includes("100 Continue") && !s.writableEnded) s.end(body)
      })
      s.on("close", () => resolve(got))
      s.write(
        `POST /v1/translate HTTP/1.1\r\nhost: emu\r\nauthorization: Bearer ${KEY}\r\ncontent-type: application/json\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\nexpect: 100-continue\r\n\r\n`
      )
    })
    expect([...r.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1])).toEqual(["100", "200"])
    expect(r).toContain("translated_text")
  })

  it("past the drain caps answers at once and keeps reading while the client still sends (lingering close)", async () => {
    const capped = await emulatorFor({ drain: { bytes: 512 * 1024, ms: 300, lingerMs: 5_000 } })
    try {
      const r = await slowWriter(capped, {
        path: "/v1/embeddings",
        auth: `Bearer ${KEY}`,
        size: 5 * 1024 * 1024,
        chunk: 128 * 1024,
        everyMs: 5
      })
      expect(r).toEqual({ statuses: [413], sent: 5 * 1024 * 1024 })
      // 64 KiB over ~640 ms: the 300 ms cap answers first; the rest is still read.
      const timed = await slowWriter(capped, {
        path: "/v1/nope",
        auth: `Bearer ${KEY}`,
        size: 64 * 1024,
        chunk: 2048,
        everyMs: 20
      })
      expect(timed).toEqual({ statuses: [404], sent: 64 * 1024 })
    } finally {
      await capped.close()
    }
  })
})
