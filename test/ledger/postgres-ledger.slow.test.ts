/**
 * The PostgreSQL ledger against a throwaway server (test/support/postgres.ts): the port's
 * conformance suite, each test in a database of its own; and what only a server does — refuse us.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted } from "effect"
import { makePostgresLedger } from "../../src/ledger/postgres-ledger.ts"
import { startPostgres, type ThrowawayPostgres } from "../support/postgres.ts"
import { ledgerConformance } from "./ledger-conformance.ts"

let server: ThrowawayPostgres
let databases = 0
beforeAll(async () => {
  server = await startPostgres()
}, 60_000)
afterAll(() => server?.stop())

ledgerConformance("PostgreSQL", {
  fresh: () => server.database(`t${++databases}`),
  open: (url, options) => makePostgresLedger({ url: Redacted.make(url), ...options })
})

describe("PostgreSQL ledger", () => {
  const opened = (url: string) =>
    Effect.exit(Effect.scoped(makePostgresLedger({ url: Redacted.make(url), connectTimeoutMs: 3000 })))

  it.live("a wrong password: refused, unreachable (exit 10), named by host, the password never in the message", () =>
    Effect.gen(function* () {
      const wrong = server.url.replace(server.password, "not-the-password")
      const exit = yield* opened(wrong)
      expect(Exit.isFailure(exit)).toBe(true)
      const error = Exit.isFailure(exit) ? (exit.cause as { error?: unknown }).error : undefined
      expect(error).toMatchObject({ _tag: "LedgerError", unreachable: true, exitCode: 10 })
      const message = (error as Error).message
      expect(message).toContain(`cannot reach PostgreSQL at 127.0.0.1:${server.port}`)
      expect(message).toContain("password authentication failed")
      expect(message).not.toContain("not-the-password")
      expect(message).not.toContain(server.password)
    })
  )

  it.live("no server on the port: unreachable (exit 10), named by host", () =>
    Effect.gen(function* () {
      const exit = yield* opened(`postgres://svc:secret-pw@127.0.0.1:1/x`)
      const error = Exit.isFailure(exit) ? (exit.cause as { error?: unknown }).error : undefined
      expect(error).toMatchObject({ _tag: "LedgerError", unreachable: true, exitCode: 10 })
      expect((error as Error).message).toContain("cannot reach PostgreSQL at 127.0.0.1:1")
      expect((error as Error).message).toContain("postgres://svc:***@127.0.0.1:1/x")
      expect((error as Error).message).not.toContain("secret-pw")
    })
  )
})
