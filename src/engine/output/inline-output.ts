/**
 * The output written during the processing pass, so a run reads its input once: every item read
 * waits in input order until it has its outcome (a read reject at once, a record done from the
 * ledger's answers within its window, one sent to the service when its worker finishes, one this
 * run finished before a restart from the ledger); the settled items at the head of the line go to
 * the output writer.
 *
 * Records finish out of order, so the items behind an unfinished one wait in memory. A record
 * that takes long (a retry's backoff, a slow answer) could hold back an unbounded number of
 * them: past `maxWaiting` items or `maxBytes`, the inline output gives up, drops what it holds
 * and the output pass writes the output after the processing pass, as it would without it.
 * Giving up (a failed write too, or a store busy with another process) never fails the run.
 */
import { Effect, Exit, Scope } from "effect"
import type { Source, SourceItem } from "../../io/source.ts"
import { sourceTypes } from "../../io/input-access.ts"
import { sinkFor } from "../../io/sinks/index.ts"
import type { Ledger, StoredRecord } from "../../ledger/ledger.ts"
import { approximateBytes } from "../flow/byte-gate.ts"
import type { InputGuard } from "./input-guard.ts"
import { openOutputWriter, type OutputSettings, type OutputWriter } from "./output-writer.ts"

/** Where the inline output gives up (items or bytes waiting behind an unfinished record). */
export interface InlineLimits {
  readonly maxWaiting?: number
  readonly maxBytes?: number
  readonly batch?: number
}

/** What the inline output reads of a run's settings: the writer's, and the source's types. */
export interface InlineOutputSettings extends OutputSettings {
  readonly source: Source
  /**
   * `false`: the output pass writes the output after processing, though it could be written
   * inline (the fallback's path on purpose: tests, measurements); else the inline output's limits.
   */
  readonly inlineOutput?: InlineLimits | false | undefined
}

export interface InlineOutput {
  /** An item read, in input order (before its outcome is known); a read reject is settled at once. */
  readonly read: (item: SourceItem) => void
  /** A record's outcome: written, with the settled items after it, once every item before it is. */
  readonly settle: (ordinal: number, stored: StoredRecord) => Effect.Effect<void>
  /** Outcomes of many records at once (a window's), written together. */
  readonly settleAll: (outcomes: ReadonlyArray<StoredRecord & { readonly ordinal: number }>) => Effect.Effect<void>
  /** Whether the output is still written as the run goes (false once given up). */
  readonly active: () => boolean
  /**
   * After a complete processing pass: writes what is left and gives the writer to commit, with
   * the scope holding its files; undefined (its files removed) when it gave up or an item has no outcome.
   */
  readonly finish: Effect.Effect<OutputWriter | undefined>
  /** Gives up: what was written is removed when the scope closes (also when the run stops or fails). */
  readonly giveUp: (reason: string) => void
  /** Why it gave up, if it did. */
  readonly reason: () => string | undefined
}

interface Waiting {
  readonly item: SourceItem
  stored: StoredRecord | undefined
  settled: boolean
  readonly bytes: number
}

/**
 * Settled items written together: one write per record would cost a file write and a chain of
 * effects each (cold runs measured ~8 % more CPU a record that way).
 */
export const WRITE_BATCH = 512

/** Items waiting behind an unfinished record, beyond which the inline output gives up. */
export const MAX_WAITING = 16_384
export const MAX_WAITING_BYTES = 32 * 1024 * 1024

export const makeInlineOutput = (
  writer: OutputWriter,
  /** The scope of the writer's files: closed here when it gives up, else by whoever commits. */
  scope: Scope.CloseableScope,
  limits: InlineLimits = {}
): InlineOutput => {
  const batch = limits.batch ?? WRITE_BATCH
  const maxWaiting = limits.maxWaiting ?? MAX_WAITING
  const maxBytes = limits.maxBytes ?? MAX_WAITING_BYTES
  // The line: line[head..] wait, in input order; records also by ordinal, to settle them.
  let line: Array<Waiting> = []
  let head = 0
  let bytes = 0
  // Settled items not yet written (at the head or behind an unfinished one).
  let settledCount = 0
  const byOrdinal = new Map<number, Waiting>()
  let gaveUp: string | undefined
  // One fiber writes at a time (the one that settled the head); others only add to the line.
  let writing = false

  const giveUp = (reason: string) => {
    if (gaveUp !== undefined) return
    gaveUp = reason
    line = []
    head = 0
    bytes = 0
    settledCount = 0
    byOrdinal.clear()
  }

  /** The settled items at the head of the line, taken off it (undefined: the head is not settled). */
  const takeSettled = () => {
    if (head >= line.length || !line[head]!.settled) return undefined
    const items: Array<SourceItem> = []
    const outcomes: Array<StoredRecord | undefined> = []
    while (head < line.length && line[head]!.settled) {
      const w = line[head++]!
      items.push(w.item)
      bytes -= w.bytes
      settledCount--
      if (w.item._tag === "Record") {
        outcomes.push(w.stored)
        byOrdinal.delete(w.item.ordinal)
      }
    }
    // The taken part of the array is dropped once it is most of it.
    if (head > 4096 && head * 2 > line.length) {
      line = line.slice(head)
      head = 0
    }
    return { items, outcomes }
  }

  /**
   * One write of the settled head of the line (`all`: also fewer than a batch); whether to write
   * again. Taking the items and writing them is not cut in half by an interruption: the line would
   * lose the items it took.
   */
  const due = (all: boolean) => !writing && gaveUp === undefined && (all || settledCount >= batch)
  const writeOnce = (all: boolean): Effect.Effect<boolean> =>
    Effect.uninterruptible(
      Effect.suspend(() => {
        if (!due(all)) return Effect.succeed(false)
        const next = takeSettled()
        if (next === undefined) return Effect.succeed(false)
        writing = true
        return Effect.map(Effect.exit(Scope.extend(writer.write(next.items, next.outcomes), scope)), (exit) => {
          writing = false
          if (Exit.isSuccess(exit)) return true
          giveUp(`writing the output failed: ${Exit.isInterrupted(exit) ? "interrupted" : String(exit.cause)}`)
          return false
        })
      })
    )

  /**
   * Writes the settled head of the line until the head waits for an outcome. A loop outside the
   * uninterruptible region: a region per write, each left before the next begins. Recursing inside
   * it kept every batch written during a streak reachable from the fiber's stack (a heap exhausted
   * by a long run of answered duplicates).
   */
  const pumpOf = (all: boolean): Effect.Effect<void> =>
    // Checked first too: this runs at every record's settling, most often with nothing to write.
    Effect.suspend(() =>
      due(all) ? Effect.flatMap(writeOnce(all), (again) => (again ? pumpOf(all) : Effect.void)) : Effect.void
    )
  const pump = pumpOf(false)

  return {
    read: (item) => {
      if (gaveUp !== undefined) return
      const w: Waiting =
        item._tag === "Record"
          ? { item, stored: undefined, settled: false, bytes: approximateBytes(item.fields) }
          : { item, stored: undefined, settled: true, bytes: 2 * item.raw.length }
      line.push(w)
      bytes += w.bytes
      if (w.settled) settledCount++
      if (item._tag === "Record") byOrdinal.set(item.ordinal, w)
      if (line.length - head > maxWaiting || bytes > maxBytes) {
        giveUp(
          `more than ${line.length - head > maxWaiting ? `${maxWaiting} records` : `${Math.round(maxBytes / 1048576)} MiB`} waited behind an unfinished one`
        )
      }
    },
    settle: (ordinal, stored) =>
      Effect.suspend(() => {
        const w = byOrdinal.get(ordinal)
        if (w === undefined) return Effect.void
        w.stored = stored
        w.settled = true
        settledCount++
        return line[head]!.settled ? pump : Effect.void
      }),
    settleAll: (outcomes) =>
      Effect.suspend(() => {
        for (const o of outcomes) {
          const w = byOrdinal.get(o.ordinal)
          if (w === undefined) continue
          w.stored = { key: o.key, outcome: o.outcome }
          w.settled = true
          settledCount++
        }
        return head < line.length && line[head]!.settled ? pump : Effect.void
      }),
    active: () => gaveUp === undefined,
    // No fiber writes any more: what settled last (its settler saw a write in progress) is written now.
    finish: Effect.suspend(() => Effect.zipRight(pumpOf(true), Effect.suspend(finishNow))),
    giveUp,
    reason: () => gaveUp
  }

  function finishNow(): Effect.Effect<OutputWriter | undefined> {
    if (gaveUp === undefined && (writing || head < line.length)) giveUp("a record read has no outcome")
    if (gaveUp === undefined) return Effect.succeed(writer)
    return Effect.as(Scope.close(scope, Exit.void), undefined)
  }
}

/**
 * Whether the sink can be opened before the whole input is read: what the sink needs of the
 * input (nothing; its columns; also their types) is known before its end. A JSONL input gives
 * neither columns nor types, so its CSV or Parquet output is written by the output pass. A store
 * is written inline too: it tells a repeated id as records come, in input order.
 */
export const inlineOutputFits = (
  settings: Pick<InlineOutputSettings, "output" | "inlineOutput">,
  declared: ReadonlyArray<string> | undefined,
  knownTypes: boolean
): boolean => {
  if (settings.inlineOutput === false) return false
  switch (sinkFor(settings.output.format)?.needs) {
    case "nothing":
      return true
    case "columns":
      return declared !== undefined
    case "types":
      return declared !== undefined && knownTypes
    default:
      return false
  }
}

/**
 * The inline output of a run, with the scope of its files (closed, and the files removed, when
 * the caller's scope closes without a commit). Undefined when its files cannot be opened, or its
 * store is being written by another process (not waited for here: the run goes on, and the output
 * pass waits for it at the end); the output pass then meets any other trouble and reports it.
 */
export const openInlineOutput = (
  settings: InlineOutputSettings,
  declared: ReadonlyArray<string> | undefined,
  guard: InputGuard
): Effect.Effect<
  { readonly output: InlineOutput; readonly scope: Scope.CloseableScope } | undefined,
  never,
  Ledger | Scope.Scope
> =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const inputTypes =
      settings.source.inputTypes === undefined ? undefined : yield* Effect.option(sourceTypes(settings.source))
    const writer = yield* Effect.either(
      Scope.extend(
        openOutputWriter(
          settings,
          { declared, inputTypes: inputTypes?._tag === "Some" ? inputTypes.value : undefined },
          guard,
          false
        ),
        scope
      )
    )
    if (writer._tag === "Left") {
      yield* Effect.logDebug(`the output is written after processing: ${writer.left.message}`)
      return undefined
    }
    return { output: makeInlineOutput(writer.right, scope, settings.inlineOutput || {}), scope }
  })
