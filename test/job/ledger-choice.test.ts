/**
 * Which ledger a job uses: `--ledger` / `--state` over SVC_BATCH_LEDGER_URL over the job's
 * `ledger:` / `state:`, SQLite by default; the URL held redacted and named without its password.
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ledgerName, resolveJob } from "../../src/job/resolve-job.ts"

const ENV = "SVC_BATCH_LEDGER_URL"
const URL_A = "postgres://svc:pw-a@db-a:5432/ledger"
const URL_B = "postgresql://svc:pw-b@db-b/ledger"

const jobFile = (extra = "") => {
  const dir = mkdtempSync(join(tmpdir(), "svc-job-"))
  writeFileSync(join(dir, "in.csv"), "id,text\n1,hello\n")
  const path = join(dir, "job.yaml")
  writeFileSync(
    path,
    `name: j\npipeline: moderation\nfields: { text: text }\ninput: { path: in.csv }\noutput: { path: out/r.csv }\n${extra}`
  )
  return { dir, path }
}
const urlOf = (job: { ledgerUrl: Redacted.Redacted<string> | undefined }) =>
  job.ledgerUrl === undefined ? undefined : Redacted.value(job.ledgerUrl)

describe("the job's ledger", () => {
  afterEach(() => {
    delete process.env[ENV]
  })

  it.effect("SQLite beside the job file by default", () =>
    Effect.gen(function* () {
      const { dir, path } = jobFile()
      const job = yield* resolveJob(path)
      expect(job.ledgerUrl).toBeUndefined()
      expect(ledgerName(job)).toBe(join(dir, ".svc-batch/j.ledger.sqlite"))
    })
  )

  it.effect("the job's ledger: URL, held redacted and named without its password", () =>
    Effect.gen(function* () {
      const job = yield* resolveJob(jobFile(`ledger: ${URL_A}\n`).path)
      expect(urlOf(job)).toBe(URL_A)
      expect(String(job.ledgerUrl)).not.toContain("pw-a")
      expect(ledgerName(job)).toBe("postgres://svc:***@db-a:5432/ledger")
    })
  )

  it.effect(
    "the environment over the job file (its state: too); --ledger over both; --state over the environment",
    () =>
      Effect.gen(function* () {
        process.env[ENV] = URL_B
        const { path } = jobFile(`ledger: ${URL_A}\n`)
        expect(urlOf(yield* resolveJob(path))).toBe(URL_B)
        expect(urlOf(yield* resolveJob(jobFile("state: mine.sqlite\n").path))).toBe(URL_B)
        expect(urlOf(yield* resolveJob(path, { ledger: URL_A }))).toBe(URL_A)
        const state = yield* resolveJob(path, { state: "x.sqlite" })
        expect(state.ledgerUrl).toBeUndefined()
        expect(state.state).toBe(join(process.cwd(), "x.sqlite"))
      })
  )

  it.effect(
    "refused, without echoing the value: --state with --ledger, a --ledger or variable that is not a postgres URL, state: with ledger:",
    () =>
      Effect.gen(function* () {
        const { path } = jobFile()
        const refused = (extra: string, overrides: Parameters<typeof resolveJob>[1] = {}) =>
          Effect.flip(resolveJob(extra === "" ? path : jobFile(extra).path, overrides))
        expect(yield* refused("", { state: "x.sqlite", ledger: URL_A })).toMatchObject({
          flag: "--ledger",
          exitCode: 2
        })
        const notUrl = yield* refused("", { ledger: "mysql://u:secret@h/db" })
        expect(notUrl).toMatchObject({ flag: "--ledger" })
        expect(notUrl.message).not.toContain("secret")
        process.env[ENV] = ""
        expect(yield* refused("")).toMatchObject({ flag: ENV })
        delete process.env[ENV]
        expect(yield* refused(`state: a.sqlite\nledger: ${URL_A}\n`)).toMatchObject({ _tag: "JobFileError" })
        const badFile = yield* refused("ledger: mysql://u:secret@h/db\n")
        expect(badFile.message).toContain("expected a postgres:// URL")
        expect(badFile.message).not.toContain("secret")
      })
  )
})
