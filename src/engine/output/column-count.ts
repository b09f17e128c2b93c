/**
 * A column's values counted over the done records' first rows (a moderation run's verdicts), as a
 * consumer of the output's rows: the run keeps them with no query over every record afterwards.
 */
import type { RowTally } from "./row-tally.ts"

/** Done records with this value in the counted column of their first row (null: absent or null). */
export interface ColumnCount {
  readonly value: string | null
  readonly n: number
}

/** `tally` makes one count per output writer; `committed` is the one whose output was committed, if any. */
export const columnCountOfOutput = (column: string) => {
  let committed: ReadonlyArray<ColumnCount> | undefined
  const tally = (): RowTally => {
    const counted = new Map<string | null, number>()
    return {
      add: (_fields, stored) => {
        if (stored.outcome._tag !== "Done") return
        const v = stored.outcome.output.rows[0]?.[column]
        const value = v === undefined || v === null ? null : typeof v === "string" ? v : JSON.stringify(v)
        counted.set(value, (counted.get(value) ?? 0) + 1)
      },
      commit: () => void (committed = [...counted].map(([value, n]) => ({ value, n })))
    }
  }
  return { tally, committed: (): ReadonlyArray<ColumnCount> | undefined => committed }
}
