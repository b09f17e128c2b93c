/**
 * Keeps one bad quote from costing more than its own row. csv-parse, at a quote that opens and is
 * never properly closed, reads on across line breaks (a quoted field may span lines) until the
 * quoting breaks or the file ends: every row in between was swallowed into one reject — or into
 * neither file. This transform, in front of csv-parse, follows the quoting line by line; when a
 * record's quoting breaks (a closing quote followed by something else, the end of the file inside
 * quotes, or a quoted field longer than the record limit), the line where the quote opened is
 * replaced by a marker line — csv-parse reads it as a row the CSV source turns into a reject with
 * the reason — and reading resumes on the next line, which is scanned afresh. Every other line
 * passes unchanged, so line numbers stay those of the file. With `unclosedQuote: "stop"` the
 * transform fails instead, with an `UnclosedQuote` naming that line (the job exits 2).
 */
import { StringDecoder } from "node:string_decoder"
import { Transform } from "node:stream"

/** A broken quote when the job asked to stop on one (`input.unclosedQuote: stop`). */
export class UnclosedQuote extends Error {
  constructor(
    readonly line: number,
    why: string
  ) {
    super(
      `the quote opened on line ${line} ${why}; the run stops there (input.unclosedQuote: stop) — fix that row, or set input.unclosedQuote: reject to reject it and read on`
    )
    this.name = "UnclosedQuote"
  }
}

/** What replaces a broken row: a field csv-parse reads as is (no quote, comma or line break; quoted with the line breaks of a row of several lines). */
const MARKER = "\u0000svc-batch-broken-row:"

export interface BrokenRow {
  readonly line: number
  readonly reason: string
  readonly raw: string
}

/** The broken row a marker field stands for, if `value` is one (and forgets it: each is read once). */
export type BrokenRows = (value: unknown) => BrokenRow | undefined

const QUOTE = 34

type Scanned =
  | {
      readonly inQuotes: boolean
      /** A quote inside an unquoted field (csv-parse's "Invalid Opening Quote"): the field's text before it. */
      readonly stray?: string
    }
  | { readonly error: string }

/**
 * Scans one physical line (with its line break) from a quoting state; the state after it, or why
 * it breaks. A closing quote is followed by a comma, the file's line break (`crlf`: CRLF) or the
 * end of the file, as csv-parse requires: after anything else (a CR in an LF file, an LF alone in
 * a CRLF file) csv-parse fails the row and reads on inside quotes, swallowing the rows after it.
 * `continued`: the line goes on with a field that is not quoted (after an LF alone in a CRLF
 * file), so a quote at its start is inside that field, not the opening of one.
 */
const scanLine = (text: string, inQuotes: boolean, crlf: boolean, continued: boolean): Scanned => {
  if (!inQuotes && text.indexOf('"') === -1) return { inQuotes: false }
  let quoted = inQuotes
  let fieldStart = !inQuotes && !continued
  let fieldBegin = 0
  let stray: string | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (quoted) {
      if (c !== QUOTE) continue
      const next = text[i + 1]
      if (next === '"') {
        i++ // an escaped quote
      } else if (next === "," || next === undefined || (crlf ? next === "\r" && text[i + 2] === "\n" : next === "\n")) {
        quoted = false
        fieldStart = false
      } else {
        return { error: `a closing quote is followed by ${JSON.stringify(next)}` }
      }
    } else if (c === QUOTE && fieldStart) {
      quoted = true
    } else {
      // (The last 40 characters before it: enough to find it in the line.)
      if (c === QUOTE && stray === undefined)
        stray = `${i - fieldBegin > 40 ? "…" : ""}${text.slice(Math.max(fieldBegin, i - 40), i)}`
      fieldStart = text[i] === ","
      if (fieldStart) fieldBegin = i + 1
    }
  }
  return stray === undefined ? { inQuotes: quoted } : { inQuotes: quoted, stray }
}

export interface ResyncOptions {
  readonly unclosedQuote?: "reject" | "stop" | undefined
  /** The file's line number of a line of the text read (a unit read behind its header): for the reasons given. */
  readonly lineOf?: (line: number) => number
  /**
   * Told of every record passed on (or replaced by a marker), in order: its first and last line
   * (of the text read), whether it is a marker, and its text (the lines a marker stands for).
   */
  readonly onRecord?: (first: number, last: number, marker: boolean, text: string) => void
}

/** The line-by-line scanner, without a stream around it (the cut of a CSV input into units feeds it too). */
export const resyncLines = (maxRecordChars: number, options: ResyncOptions = {}) => {
  const { unclosedQuote = "reject", lineOf = (line: number) => line, onRecord } = options
  const broken = new Map<string, BrokenRow>()
  let nextId = 0
  let lineNo = 0
  // The record being read: its lines (with their breaks), where it starts, its quoting state.
  let record: Array<string> = []
  let recordChars = 0
  let start = 0
  let inQuotes = false

  // csv-parse takes the record delimiter from the first line: in a CRLF file a bare \n (outside
  // quotes too) does not end a record. The scanner follows the same rule, and a marker line ends
  // with that delimiter, so csv-parse reads it as a row of its own.
  let crlf = false
  /**
   * The marker standing for a rejected row; `lines`: its physical lines, kept whole (up to 2,000
   * characters) as the reject's raw. A row of several lines becomes a quoted marker holding their
   * line breaks, so csv-parse counts the same lines and the next rows keep their numbers.
   */
  const marker = (line: number, lines: ReadonlyArray<string>, reason: string): string => {
    const id = `${nextId++}`
    onRecord?.(line, line + lines.length - 1, true, "")
    broken.set(id, {
      line: lineOf(line),
      reason,
      raw: lines
        .join("")
        .replace(/\r?\n$/, "")
        .slice(0, 2000)
    })
    const eol = crlf ? "\r\n" : "\n"
    if (lines.length === 1) return `${MARKER}${id}${eol}`
    const breaks = lines
      .slice(0, -1)
      .map((l) => (l.endsWith("\r\n") ? "\r\n" : "\n"))
      .join("")
    return `"${MARKER}${id}${breaks}"${eol}`
  }
  /** `why`: what is wrong with the quote opened on `line`. */
  const rejectLine = (line: number, text: string, why: string): string => {
    if (unclosedQuote === "stop") throw new UnclosedQuote(lineOf(line), why)
    return marker(
      line,
      [text],
      `the quote opened on line ${lineOf(line)} ${why}; the row is rejected and reading resumes on line ${lineOf(line + 1)}`
    )
  }
  // The first quote inside an unquoted field of the record being read (csv-parse would skip the
  // row, its reject holding the row only up to that quote): the row is rejected here, whole.
  let stray: { readonly line: number; readonly before: string } | undefined

  /** Feeds physical lines (numbered from `first`); returns the text to pass on. */
  const feed = (lines: ReadonlyArray<string>, first: number): string => {
    let out = ""
    let queue = lines
    let at = 0
    let n = first
    while (at < queue.length) {
      const text = queue[at++]!
      const line = n++
      if (record.length === 0) start = line
      // The header is csv-parse's to judge: a broken header is the whole file's problem.
      if (line === 1) crlf = text.endsWith("\r\n")
      const scanned = line === 1 ? { inQuotes: false } : scanLine(text, inQuotes, crlf, record.length > 0 && !inQuotes)
      const end = !("error" in scanned) && !scanned.inQuotes && (!crlf || text.endsWith("\r\n") || !text.endsWith("\n"))
      recordChars += text.length
      if ("error" in scanned || (!end && recordChars > maxRecordChars)) {
        // Said of the line where the quote opened: where the quoting broke, when on a later line.
        const why = !("error" in scanned)
          ? `is not closed properly (no closing quote within ${maxRecordChars} characters)`
          : line === start
            ? `is not closed properly (${scanned.error})`
            : `is not closed properly (it runs on to line ${lineOf(line)}, where ${scanned.error})`
        const lines = [...record, text]
        out += rejectLine(start, lines[0]!, why)
        // Everything after the broken line is read again as if the bad quote were not there.
        queue = [...lines.slice(1), ...queue.slice(at)]
        at = 0
        n = start + 1
        record = []
        recordChars = 0
        inQuotes = false
        stray = undefined
        continue
      }
      record.push(text)
      inQuotes = scanned.inQuotes
      if (scanned.stray !== undefined) stray ??= { line, before: scanned.stray }
      if (end) {
        if (stray === undefined) {
          const text = record.length === 1 ? record[0]! : record.join("")
          onRecord?.(start, line, false, text)
          out += text
        } else {
          out += marker(
            start,
            record,
            `a quote inside an unquoted field on line ${lineOf(stray.line)} (after ${JSON.stringify(stray.before)}): quote the whole field and double the quotes in it; the row is rejected`
          )
        }
        record = []
        recordChars = 0
        stray = undefined
      }
    }
    lineNo = n - 1
    return out
  }

  /** The end of the text: a quote still open is the bad one (the line where it opened). */
  const finish = (last: string): string => {
    let out = last === "" ? "" : feed([last], lineNo + 1)
    while (record.length > 0) {
      const lines = record
      const first = start
      record = []
      recordChars = 0
      inQuotes = false
      stray = undefined
      out += rejectLine(first, lines[0]!, "is never closed (the file ends inside it)")
      out += feed(lines.slice(1), first + 1)
    }
    return out
  }

  /** Physical lines (each with its line break), the next ones of the text. */
  const next = (lines: ReadonlyArray<string>): string => feed(lines, lineNo + 1)

  return {
    next,
    finish,
    brokenRow: ((value) => {
      if (typeof value !== "string" || !value.startsWith(MARKER)) return undefined
      const id = value.slice(MARKER.length).replace(/[\r\n]+$/, "")
      const row = broken.get(id)
      broken.delete(id)
      return row
    }) satisfies BrokenRows
  }
}

export const csvResync = (
  maxRecordChars: number,
  options: ResyncOptions = {}
): { readonly transform: Transform; readonly brokenRow: BrokenRows } => {
  const lines = resyncLines(maxRecordChars, options)
  const decoder = new StringDecoder("utf8")
  let partial = ""
  const transform = new Transform({
    decodeStrings: true,
    transform(chunk: Buffer, _encoding, done) {
      const text = partial + decoder.write(chunk)
      const physical: Array<string> = []
      let from = 0
      for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
        physical.push(text.slice(from, nl + 1))
        from = nl + 1
      }
      partial = text.slice(from)
      let out: string
      try {
        out = lines.next(physical)
      } catch (e) {
        return done(e as Error)
      }
      done(null, out === "" ? undefined : out)
    },
    flush(done) {
      let out: string
      try {
        out = lines.finish(partial + decoder.end())
      } catch (e) {
        return done(e as Error)
      }
      done(null, out === "" ? undefined : out)
    }
  })
  transform.setEncoding("utf8")
  return { transform, brokenRow: lines.brokenRow }
}
