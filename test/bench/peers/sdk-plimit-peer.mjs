/**
 * The cold-CPU peer: test/bench/sdk-peer.mjs with p-limit's limiter (a dozen lines, below) instead
 * of bottleneck, so no pacing at all — what a user writes against an unlimited service.
 *   node test/bench/peers/sdk-plimit-peer.mjs <baseUrl> <key> <input.jsonl> <output.jsonl> <concurrency>
 */
import { createReadStream, createWriteStream } from "node:fs"
import { createInterface } from "node:readline"
import OpenAI from "openai"

const [url, key, input, output, concurrency] = process.argv.slice(2)
const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: key })
/** p-limit's contract: at most `n` of the functions given run at once. */
const limit = (n) => {
  let active = 0
  const queue = []
  const next = () => {
    if (active >= n || queue.length === 0) return
    active++
    const { fn, resolve, reject } = queue.shift()
    fn()
      .then(resolve, reject)
      .finally(() => {
        active--
        next()
      })
  }
  return (fn) =>
    new Promise((resolve, reject) => {
      queue.push({ fn, resolve, reject })
      next()
    })
}
const limiter = { schedule: limit(Number(concurrency)) }
const out = createWriteStream(output)

const judge = async (record) => {
  const c = await client.chat.completions.create({
    model: "svc3-guard",
    messages: [{ role: "user", content: record.text }],
    max_completion_tokens: 64
  })
  const raw = c.choices[0]?.message.content ?? ""
  // The guard answers 「安全」 (safe) or 「有害」, a line break and category codes (spec 2.7).
  const [head, codes = ""] = raw.split("\n")
  const verdict = head === "安全" ? "safe" : head === "有害" ? "harmful" : "unparsed"
  out.write(
    `${JSON.stringify({ ...record, moderation_verdict: verdict, moderation_categories: codes.replace(/\s/g, "") })}\n`
  )
}

const pending = new Set()
for await (const line of createInterface({ input: createReadStream(input), crlfDelay: Infinity })) {
  if (line === "") continue
  const p = limiter.schedule(() => judge(JSON.parse(line))).catch((e) => console.error(String(e)))
  pending.add(p)
  p.finally(() => pending.delete(p))
  // Back-pressure like a careful script: do not queue the whole corpus.
  if (pending.size >= 256) await Promise.race(pending)
}
await Promise.all(pending)
await new Promise((resolve) => out.end(resolve))
