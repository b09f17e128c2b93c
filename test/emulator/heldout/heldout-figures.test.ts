/**
 * The held-out figures the README and docs/emulator.md state are ones the stand-ins reach: each
 * stated count is recomputed from its set, and a recall or rank-first count may not be stated
 * higher (nor a false-positive count lower) than measured — the documents cannot drift upward.
 */
import { describe, expect, it } from "vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { loadLabelled, measureGuard } from "../models/guard-measure.ts"
import { evaluateOrdering, loadOrderingCases } from "../models/ordering-eval.ts"

const root = join(import.meta.dirname, "..", "..", "..")
const read = (name: string) => readFileSync(join(root, name), "utf8").split("\n")

/** The "(n/N" counts of a line, in order. */
const counts = (line: string) => [...line.matchAll(/\((\d+)\/(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])] as const)

/** Lines naming a held-out guard set with the counts they state: [recall, false positives]. */
const guardRows = (lines: ReadonlyArray<string>) =>
  lines.flatMap((line) => {
    const set = /`test\/emulator\/(heldout\/guard-heldout[\w-]*\.jsonl)`/.exec(line)?.[1]
    const [recall, falsePositives] = counts(line)
    return set !== undefined && recall !== undefined && falsePositives !== undefined
      ? [{ set, recall, falsePositives }]
      : []
  })

const paraphrases = evaluateOrdering(loadOrderingCases(new URL("./ordering-paraphrase-heldout.jsonl", import.meta.url)))

describe.each(["README.md", "docs/emulator.md"])("held-out figures in %s", (doc) => {
  const lines = read(doc)

  it("states both guard held-out sets", () => {
    expect(guardRows(lines).map((r) => r.set)).toEqual(
      expect.arrayContaining(["heldout/guard-heldout.jsonl", "heldout/guard-heldout-2.jsonl"])
    )
  })

  it.each(guardRows(lines).map((r) => [r.set, r] as const))(
    "guard on %s: no more recall, no fewer false positives than measured",
    (set, row) => {
      const m = measureGuard(loadLabelled(set))
      expect([row.recall[1], row.falsePositives[1]]).toEqual([m.harmful, m.others])
      expect(m.recalled, m.missed.join("\n")).toBeGreaterThanOrEqual(row.recall[0])
      expect(m.flaggedCount, m.flagged.join("\n")).toBeLessThanOrEqual(row.falsePositives[0])
    }
  )

  it("rerank and embeddings on the held-out paraphrases: no more ranked first than measured", () => {
    // README: both counts on the line naming the set; docs/emulator.md: the table after it.
    const at = lines.findIndex((l) => l.includes("heldout/ordering-paraphrase-heldout.jsonl"))
    expect(at).toBeGreaterThanOrEqual(0)
    const after = lines.slice(at, at + 12)
    const stated =
      doc === "README.md"
        ? counts(after.slice(0, 2).join(" "))
        : [after.find((l) => l.startsWith("| rerank")), after.find((l) => l.startsWith("| embeddings"))].map(
            (l) => counts(l ?? "")[0]!
          )
    const [rerank, embeddings] = stated
    expect([rerank![1], embeddings![1]]).toEqual([paraphrases.total, paraphrases.total])
    expect(paraphrases.rerankFirst).toBeGreaterThanOrEqual(rerank![0])
    expect(paraphrases.embeddingsFirst).toBeGreaterThanOrEqual(embeddings![0])
  })
})
