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
  constructor(readonly line: number, why: string) {
    super(`the quote opened on line ${line} ${why}; the run stops there (input.unclosedQuote: stop) — fix that row, or set input.unclosedQuote: reject to reject it and read on`)
    this.name = "UnclosedQuote"
  }
}

/** What replaces a broken line: a field csv-parse reads as is (no quote, comma or line break). */
const MARKER = "\u0000svc-batch-broken-row:"

export interface BrokenRow {
  readonly line: number
  readonly reason: string
  readonly raw: string
}

/** The broken row a marker field stands for, if `value` is one (and forgets it: each is read once). */
export type BrokenRows = (value: unknown) => BrokenRow | undefined

const QUOTE = 34

/** Scans one physical line (with its line break) from a quoting state; the state after it, or why it breaks. */
const scanLine = (text: string, inQuotes: boolean): { readonly inQuotes: boolean } | { readonly error: string } => {
  if (!inQuotes && text.indexOf('"') === -1) return { inQuotes: false }
  let quoted = inQuotes
  let fieldStart = !inQuotes
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (quoted) {
      if (c !== QUOTE) continue
      const next = text[i + 1]
      if (next === '"') {
        i++ // an escaped quote
      } else if (next === "," || next === "\r" || next === "\n" || next === undefined) {
        quoted = false
        fieldStart = false
      } else {
        return { error: `a closing quote is followed by ${JSON.stringify(next)}` }
      }
    } else if (c === QUOTE && fieldStart) {
      quoted = true
    } else {
      fieldStart = text[i] === ","
    }
  }
  return { inQuotes: quoted }
}

export const csvResync = (maxRecordChars: number, unclosedQuote: "reject" | "stop" = "reject"): { readonly transform: Transform; readonly brokenRow: BrokenRows } => {
  const broken = new Map<string, BrokenRow>()
  let nextId = 0
  const decoder = new StringDecoder("utf8")
  let partial = ""
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
  /** `why`: what is wrong with the quote opened on `line`. */
  const rejectLine = (line: number, text: string, why: string): string => {
    if (unclosedQuote === "stop") throw new UnclosedQuote(line, why)
    const reason = `the quote opened on line ${line} ${why}; the row is rejected and reading resumes on line ${line + 1}`
    const id = `${nextId++}`
    broken.set(id, { line, reason, raw: text.replace(/\r?\n$/, "").slice(0, 2000) })
    return `${MARKER}${id}${crlf ? "\r\n" : "\n"}`
  }

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
      const scanned = line === 1 ? { inQuotes: false } : scanLine(text, inQuotes)
      const end = !("error" in scanned) && !scanned.inQuotes && (!crlf || text.endsWith("\r\n") || !text.endsWith("\n"))
      recordChars += text.length
      if ("error" in scanned || (!end && recordChars > maxRecordChars)) {
        // Said of the line where the quote opened: where the quoting broke, when on a later line.
        const why =
          !("error" in scanned)
            ? `is not closed properly (no closing quote within ${maxRecordChars} characters)`
            : line === start
              ? `is not closed properly (${scanned.error})`
              : `is not closed properly (it runs on to line ${line}, where ${scanned.error})`
        const lines = [...record, text]
        out += rejectLine(start, lines[0]!, why)
        // Everything after the broken line is read again as if the bad quote were not there.
        queue = [...lines.slice(1), ...queue.slice(at)]
        at = 0
        n = start + 1
        record = []
        recordChars = 0
        inQuotes = false
        continue
      }
      record.push(text)
      inQuotes = scanned.inQuotes
      if (end) {
        out += record.join("")
        record = []
        recordChars = 0
      }
    }
    lineNo = n - 1
    return out
  }

  const transform = new Transform({
    decodeStrings: true,
    transform(chunk: Buffer, _encoding, done) {
      const text = partial + decoder.write(chunk)
      const lines: Array<string> = []
      let from = 0
      for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
        lines.push(text.slice(from, nl + 1))
        from = nl + 1
      }
      partial = text.slice(from)
      let out: string
      try {
        out = feed(lines, lineNo + 1)
      } catch (e) {
        return done(e as Error)
      }
      done(null, out === "" ? undefined : out)
    },
    flush(done) {
      let out = ""
      try {
        const last = partial + decoder.end()
        if (last !== "") out += feed([last], lineNo + 1)
        // The end of the file inside quotes: the line where they opened is the bad one.
        while (record.length > 0) {
          const lines = record
          const first = start
          record = []
          recordChars = 0
          inQuotes = false
          out += rejectLine(first, lines[0]!, "is never closed (the file ends inside it)")
          out += feed(lines.slice(1), first + 1)
        }
      } catch (e) {
        return done(e as Error)
      }
      done(null, out === "" ? undefined : out)
    }
  })
  transform.setEncoding("utf8")

  return {
    transform,
    brokenRow: (value) => {
      if (typeof value !== "string" || !value.startsWith(MARKER)) return undefined
      const id = value.slice(MARKER.length)
      const row = broken.get(id)
      broken.delete(id)
      return row
    }
  }
}
