/**
 * The peer for `npm run bench`'s "CPU at 600 req/min" row: what a user writes without svc-batch —
 * the official `openai` SDK paced by `bottleneck`, reading the same JSONL corpus and writing one
 * verdict line per record. No ledger, no resume, no rejects file: it does less than a job, which is
 * the point of the comparison. Plain ESM run by `node` itself (no tsx), so its start-up is as cheap
 * as such a script's can be.
 *   node test/bench/sdk-peer.mjs <baseUrl> <key> <input.jsonl> <output.jsonl> <rpm> <concurrency>
 */
import { createReadStream, createWriteStream } from "node:fs"
import { createInterface } from "node:readline"
import Bottleneck from "bottleneck"
import OpenAI from "openai"

const [url, key, input, output, rpm, concurrency] = process.argv.slice(2)
const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: key })
const limiter = new Bottleneck({ maxConcurrent: Number(concurrency), minTime: 60_000 / Number(rpm) })
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
