/** `svc-batch worker` refusals that need no server: a URL that is not PostgreSQL's, and a server not there. */
import { describe, expect, it } from "@effect/vitest"
import { spawnCli } from "./spawn-cli.ts"

describe("svc-batch worker", () => {
  it("a PostgreSQL that is not there: exit 10, naming its host, never the password", async () => {
    const w = spawnCli(["worker", "--cluster", "postgres://svc:secret-pw@127.0.0.1:1/batch"])
    expect(await w.exited).toBe(10)
    expect(w.err()).toContain("127.0.0.1:1")
    expect(w.out() + w.err()).not.toContain("secret-pw")
  }, 30_000)

  it("a URL that is not a postgres:// one: exit 2", async () => {
    const w = spawnCli(["worker", "--cluster", "mysql://svc@host/db"])
    expect(await w.exited).toBe(2)
    expect(w.err()).toContain("--cluster")
  }, 30_000)
})
