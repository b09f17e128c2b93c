/** CSV `unclosedQuote: "stop"`: the read fails naming the line where the broken quote opened. */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, Stream } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { csvSource } from "../../src/io/sources/csv.ts"
import { tempDir } from "../engine/run-helpers.ts"

const file = (content: string) => {
  const path = join(tempDir(), "in.csv")
  writeFileSync(path, content)
  return path
}

const failure = async (path: string) => {
  const exit = await Effect.runPromiseExit(
    Stream.runCollect(csvSource(path, "utf-8", { unclosedQuote: "stop" }).items())
  )
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, read ${Chunk.size(exit.value)} items`)
  return String(exit.cause)
}

describe("CSV unclosedQuote: stop", () => {
  it("a quote the file ends inside: fails naming its line", async () => {
    const msg = await failure(file('id,text\n1,ok\n2,"a\nb"\n3,"never closed\n4,x\n'))
    expect(msg).toContain("SourceError")
    expect(msg).toContain("the quote opened on line 5 is never closed (the file ends inside it); the run stops there")
  })

  it("a quote closed wrongly: fails naming the line where it opened", async () => {
    const msg = await failure(file('id,text\r\n1,ok\r\n2,"opens here\r\n3,"closed"wrong\r\n4,x\r\n'))
    // The "c" is on line 4: the reason says so, not as if it were on line 3.
    expect(msg).toContain(
      'the quote opened on line 3 is not closed properly (it runs on to line 4, where a closing quote is followed by "c")'
    )
  })

  it("a file without broken quotes reads as usual", async () => {
    const path = file('id,text\n1,"a, ""b""\nc"\n2,d\n')
    const items = Chunk.toArray(
      await Effect.runPromise(Stream.runCollect(csvSource(path, "utf-8", { unclosedQuote: "stop" }).items()))
    )
    expect(items.map((i) => (i._tag === "Record" ? [i.line, i.fields.text] : i._tag))).toEqual([
      [2, 'a, "b"\nc'],
      [4, "d"]
    ])
  })
})
