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

/** Lines naming a held-out paraphrase set with the counts stated there or on the next line: [rerank, embeddings]. */
const paraphraseRows = (lines: ReadonlyArray<string>) =>
  lines.flatMap((line, i) => {
    const set = /`test\/emulator\/(heldout\/ordering-paraphrase-heldout[\w-]*\.jsonl)`/.exec(line)?.[1]
    const [rerank, embeddings] = counts(`${line} ${lines[i + 1] ?? ""}`)
    return set !== undefined && rerank !== undefined && embeddings !== undefined ? [{ set, rerank, embeddings }] : []
  })

// The README states the newest sets; docs/emulator.md every one.
const docs = [
  {
    doc: "README.md",
    guard: ["heldout/guard-heldout-3.jsonl"],
    paraphrase: ["heldout/ordering-paraphrase-heldout-2.jsonl"]
  },
  {
    doc: "docs/emulator.md",
    guard: ["heldout/guard-heldout.jsonl", "heldout/guard-heldout-2.jsonl", "heldout/guard-heldout-3.jsonl"],
    paraphrase: ["heldout/ordering-paraphrase-heldout.jsonl", "heldout/ordering-paraphrase-heldout-2.jsonl"]
  }
]

describe.each(docs)("held-out figures in $doc", ({ doc, guard, paraphrase }) => {
  const lines = read(doc)

  it("states the guard held-out sets", () => {
    expect(guardRows(lines).map((r) => r.set)).toEqual(expect.arrayContaining(guard))
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

  it("states the paraphrase held-out sets", () => {
    expect(paraphraseRows(lines).map((r) => r.set)).toEqual(expect.arrayContaining(paraphrase))
  })

  it.each(paraphraseRows(lines).map((r) => [r.set, r] as const))(
    "rerank and embeddings on %s: no more ranked first than measured",
    (set, row) => {
      const m = evaluateOrdering(loadOrderingCases(new URL(`../${set}`, import.meta.url)))
      expect([row.rerank[1], row.embeddings[1]]).toEqual([m.total, m.total])
      expect(m.rerankFirst, m.rerankMisses.join("\n")).toBeGreaterThanOrEqual(row.rerank[0])
      expect(m.embeddingsFirst, m.embeddingsMisses.join("\n")).toBeGreaterThanOrEqual(row.embeddings[0])
    }
  )
})
