/** Labelled sentence sets of the svc3-guard stand-in and how they are scored. */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { judge } from "../../../src/emulator/models/guard.ts"

export interface Labelled {
  readonly text: string
  readonly expect: ReadonlyArray<string>
  readonly kind: "harmful" | "near-miss" | "benign"
}

/** A JSON-lines set, by its path from test/emulator/. */
export const loadLabelled = (path: string): ReadonlyArray<Labelled> =>
  readFileSync(join(import.meta.dirname, "..", ...path.split("/")), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Labelled)

/** Recall: harmful sentences flagged with their category; false positives: others flagged at all. */
export const measureGuard = (set: ReadonlyArray<Labelled>) => {
  const harmful = set.filter((r) => r.kind === "harmful")
  const others = set.filter((r) => r.kind !== "harmful")
  const recalled = harmful.filter((r) => r.expect.every((c) => judge(r.text).includes(c as never)))
  const flagged = others.filter((r) => judge(r.text).length > 0)
  return {
    recalled: recalled.length,
    harmful: harmful.length,
    flaggedCount: flagged.length,
    others: others.length,
    recall: recalled.length / harmful.length,
    falsePositiveRate: flagged.length / others.length,
    missed: harmful.filter((r) => !recalled.includes(r)).map((r) => r.text),
    flagged: flagged.map((r) => r.text)
  }
}
