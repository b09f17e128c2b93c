/** The emulator's HTTP surface over raw HTTP: routes, auth, body limits, errors, rate limit, faults. */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
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
      const r = await post(emu, "/v1/embeddings", { model: "svc3-embedding", input: "x", task_type: "CLUSTERING" }, auth)
      expect(r.status, String(auth)).toBe(401)
      expect(r.json.message).toMatch(/Unauthorized/)
    }
  })

  it("without a configured key accepts any non-empty bearer token, still 401 without one", async () => {
    const open = await startEmulator({})
    try {
      expect((await post(open, "/v1/translate", { text: "hi", source_lang: "en", target_lang: "ja" }, "Bearer anything")).status).toBe(200)
      expect((await post(open, "/v1/translate", { text: "hi", source_lang: "en", target_lang: "ja" }, null)).status).toBe(401)
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
      const emu = await emulatorFor({ error500Rate: 0.2, error503Rate: 0.2, resetRate: 0.2, faultSeed: 42, onRequest: log.onRequest })
      const outcomes: Array<string> = []
      try {
        for (let i = 0; i < 60; i++) {
          try {
            outcomes.push(String((await post(emu, "/v1/translate", { text: `t ${i}`, source_lang: "en", target_lang: "ja" })).status))
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
