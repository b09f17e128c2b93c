/** `svc-batch emulator` and `svc-batch demo` as real processes. */
import { describe, expect, it } from "@effect/vitest"
import { parseRpm } from "../../src/job/rpm.ts"
import { spawnCli } from "./spawn-cli.ts"

const start = spawnCli

describe("svc-batch emulator", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`prints its address when listening, serves the spec, and stops cleanly on ${signal}`, async () => {
      const p = start(["emulator", "--port", "0", "--api-key", "cli-key", "--rpm", "svc3-mini=60,*=600"])
      const [, url] = await p.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/)
      const ok = await fetch(`${url}/v1/translate`, {
        method: "POST",
        headers: { authorization: "Bearer cli-key" },
        body: JSON.stringify({ text: "hi", source_lang: "en", target_lang: "ja" })
      })
      expect(ok.status).toBe(200)
      const denied = await fetch(`${url}/v1/translate`, {
        method: "POST",
        headers: { authorization: "Bearer other" },
        body: "{}"
      })
      expect(denied.status).toBe(401)
      p.child.kill(signal)
      expect(await p.exited).toBe(0)
    })
  }

  it("rejects a malformed --rpm with exit code 2 and one clear line", async () => {
    const p = start(["emulator", "--port", "0", "--rpm", "lots"])
    expect(await p.exited).toBe(2)
    expect(p.err()).toContain("--rpm")
    expect(p.err()).not.toMatch(/at .*\.ts:\d+/)
  })

  it("a port already in use: exit 2 and one line saying so, no stack trace", async () => {
    const first = start(["emulator", "--port", "0"])
    const [, port] = await first.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/)
    try {
      const second = start(["emulator", "--port", port!])
      expect(await second.exited).toBe(2)
      expect(second.err().trim()).toBe(
        `svc-batch: cannot listen on 127.0.0.1:${port}: the port is in use (stop what holds it, or pick another --port; 0 picks a free one)`
      )
    } finally {
      first.child.kill("SIGTERM")
      await first.exited
    }
  })

  it("a port out of range: exit 2 naming --port", async () => {
    const p = start(["emulator", "--port", "70000"])
    expect(await p.exited).toBe(2)
    expect(p.err()).toContain("--port: a port from 0 to 65535")
  })

  it("parses --rpm as one number or per-model pairs", () => {
    expect(parseRpm("3000")).toBe(3000)
    expect(parseRpm("svc3-mini=600, *=100")).toEqual({ "svc3-mini": 600, "*": 100 })
    expect(() => parseRpm("svc3-mini")).toThrow(/--rpm/)
  })
})

describe("svc-batch demo", () => {
  it("calls every endpoint on the embedded emulator and says so", async () => {
    const p = start(["demo"], { SVC_BASE_URL: undefined, SVC_API_KEY: undefined })
    expect(await p.exited).toBe(0)
    const stdout = p.out()
    expect(stdout).toMatch(/EMULATOR \(embedded, http:\/\/127\.0\.0\.1:\d+\)/)
    for (const line of [
      "chat ",
      "chat stream",
      "moderate    safe",
      "moderate    harmful",
      "rerank",
      "embeddings  1536",
      "translate"
    ]) {
      expect(stdout).toContain(line)
    }
  })

  it("exits 2 when SVC_BASE_URL is set without SVC_API_KEY", async () => {
    const p = start(["demo"], { SVC_BASE_URL: "http://127.0.0.1:9", SVC_API_KEY: "" })
    expect(await p.exited).toBe(2)
    expect(p.err()).toContain("SVC_API_KEY")
  })
})
