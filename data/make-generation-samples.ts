/**
 * Writes the sample corpora of the rerank and extract jobs. Deterministic: the same files every run.
 *   npx tsx data/make-generation-samples.ts
 * - data/sample-rerank.jsonl: 12 queries (English and Japanese), each with 50 candidate passages
 *   (a few relevant, most not), as a JSON array.
 * - data/sample-invoices.csv: 30 free-text lines (invoices, receipts, support messages) with a
 *   date and an amount written in many ways (2026年3月5日, March 5, 2026, ¥3,200, $1,200.50, 40 EUR…);
 *   two with no amount at all.
 */
import { stringify } from "csv-stringify/sync"
import { writeFileSync } from "node:fs"
import { join } from "node:path"

const here = import.meta.dirname

let seed = 7
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
}
const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(rand() * xs.length)]!

const topics: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["how do I reset my password", ["password reset", "sign-in help", "account recovery"]],
  ["refund for a damaged parcel", ["refund", "damaged parcel", "return label"]],
  ["best way to store sourdough starter", ["sourdough starter", "refrigerator", "feeding schedule"]],
  ["train delays on the Tokaido line", ["Tokaido line", "train delays", "timetable"]],
  ["export reading history to CSV", ["export", "reading history", "CSV file"]],
  ["dark mode settings", ["dark mode", "display settings", "night theme"]],
  ["パスワードを再設定する方法", ["パスワード再設定", "ログイン", "アカウント復旧"]],
  ["請求書の住所を変更したい", ["請求書", "住所変更", "会社情報"]],
  ["配送が遅れている理由", ["配送遅延", "追跡番号", "天候"]],
  ["イヤホンの充電ケースの不具合", ["充電ケース", "イヤホン", "保証"]],
  ["vacuum flask keeps drinks hot how long", ["vacuum flask", "keeps hot", "six hours"]],
  ["change the language of the app", ["language settings", "app language", "Japanese"]]
]
const fillers = [
  "Our office is closed on public holidays.",
  "The new catalogue arrives in spring with forty new items.",
  "Garden chairs are made of recycled plastic.",
  "Parking is free for customers after six in the evening.",
  "The museum exhibition on ceramics runs until May.",
  "営業時間は午前九時から午後六時までです。",
  "新しいカタログは春に届きます。",
  "駐車場は夕方六時以降無料です。",
  "Bicycle helmets are sold in three sizes.",
  "The newsletter is sent every other Friday."
]

const rerankLines = topics.map(([query, keys], q) => {
  const candidates = Array.from({ length: 50 }, (_, i) => {
    if (i % 11 === q % 11) return `Answer ${i}: about ${keys[0]} — see the ${keys[1]} page, ${keys[2]} included.`
    if (i % 17 === 3) return `Note ${i}: mentions ${pick(keys)} in passing, together with ${pick(fillers).toLowerCase()}`
    return `Passage ${i}: ${pick(fillers)} ${pick(fillers)}`
  })
  return JSON.stringify({ id: `q${String(q + 1).padStart(2, "0")}`, query, candidates })
})
writeFileSync(join(here, "sample-rerank.jsonl"), rerankLines.join("\n") + "\n")

const dates = ["2026年3月5日", "March 5, 2026", "5 March 2026", "2026-04-18", "2026/11/02", "Nov. 2, 2026", "2026年12月24日", "1 June 2026"]
const amounts = ["¥3,200", "3,200円", "$1,200.50", "€40", "EUR 75.20", "£18.99", "12,800円", "$89"]
const templates = [
  (d: string, a: string) => `Invoice INV-{n}: consulting services, issued ${d}, total due ${a}.`,
  (d: string, a: string) => `${d}に${a}をお支払いいただきました。領収書番号{n}。`,
  (d: string, a: string) => `Receipt #{n} — paid ${a} by card on ${d}. Thank you for shopping with us!`,
  (d: string, a: string) => `お客様番号{n}：${d}ご請求分の金額は${a}です。`,
  (d: string, a: string) => `Hi, I was charged ${a} on ${d} but I cancelled my plan. Ticket {n}.`
]
const rows = Array.from({ length: 30 }, (_, i) => {
  const d = dates[i % dates.length]!
  const a = amounts[(i * 3) % amounts.length]!
  const text = i === 13 || i === 27 ? `Ticket ${1000 + i}: the app crashes when I open settings since ${d}.` : templates[i % templates.length]!(d, a).replace("{n}", String(1000 + i))
  return { id: `inv-${String(i + 1).padStart(3, "0")}`, text }
})
writeFileSync(join(here, "sample-invoices.csv"), stringify(rows, { header: true, columns: ["id", "text"] }))
console.log(`${rerankLines.length} rerank records (50 candidates each), ${rows.length} invoice lines`)
