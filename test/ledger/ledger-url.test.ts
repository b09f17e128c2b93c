/** A PostgreSQL ledger's URL, shown without its password; its host for the unreachable line. */
import { describe, expect, it } from "vitest"
import { isPostgresUrl, redactUrl, urlHost } from "../../src/ledger/ledger-url.ts"

describe("ledger URL", () => {
  it("recognises postgres:// and postgresql:// URLs, not files or other schemes", () => {
    expect(["postgres://h/db", "postgresql://u@h/db", " POSTGRES://h"].map(isPostgresUrl)).toEqual([true, true, true])
    expect(["ledger.sqlite", "/tmp/postgres://x", "mysql://h/db", ""].map(isPostgresUrl)).toEqual([
      false,
      false,
      false,
      false
    ])
  })

  it("replaces the password, and secret query parameters, with ***", () => {
    expect(redactUrl("postgres://svc:s3cr%40t@db.example:6543/ledger?sslmode=require")).toBe(
      "postgres://svc:***@db.example:6543/ledger?sslmode=require"
    )
    expect(redactUrl("postgres://db.example/ledger?user=svc&password=s3cret")).toBe(
      "postgres://db.example/ledger?user=svc&password=***"
    )
    expect(redactUrl("postgres://svc@db.example/ledger")).toBe("postgres://svc@db.example/ledger")
  })

  it("shows an unreadable URL as its scheme alone", () => {
    const shown = redactUrl("postgres://svc:s3cret@[bad/ledger")
    expect(shown).toBe("postgres://(unreadable URL)")
    expect(shown).not.toContain("s3cret")
  })

  it("names the server by host and port (5432 by default)", () => {
    expect(urlHost("postgres://svc:pw@db.example:6543/ledger")).toBe("db.example:6543")
    expect(urlHost("postgres://svc:pw@db.example/ledger")).toBe("db.example:5432")
    expect(urlHost("postgres://svc:pw@127.0.0.1:1/x")).toBe("127.0.0.1:1")
  })
})
