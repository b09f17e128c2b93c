/**
 * Writes the bulk-translation sample corpus, the same records in three formats:
 * data/sample-translation.jsonl, .csv and .parquet (the Parquet copy through the project's own
 * Parquet sink). Deterministic: running it again gives the same files.
 *   npx tsx data/make-translation-sample.ts
 * Records: support tickets, reviews, news-like paragraphs and i18n strings, about half Japanese
 * and half English; three bodies over 5,000 code points (Japanese prose in paragraphs, English
 * with code, URLs and e-mail addresses, Japanese in one paragraph with no line break at all);
 * placeholders, emoji (ZWJ sequences, flags), empty, whitespace-only and null bodies, a body of
 * digits and punctuation only, and one harmful record that moderation stops before translation.
 */
import { Effect } from "effect"
import { stringify } from "csv-stringify/sync"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { parquetSink } from "../src/io/sinks/parquet.ts"

interface Sample {
  readonly id: string
  readonly title: string
  readonly body: string | null
  readonly lang_hint: string
}

const jaTickets = [
  ["ログインできません", "昨日からアプリにログインできません。パスワードを再設定しても同じエラーが表示されます。"],
  ["請求金額について", "今月の請求金額が先月より3,200円高くなっています。プランは変更していないはずです。"],
  ["配送の遅れ", "注文した商品がまだ届きません。追跡番号で確認すると、三日前から同じ場所に止まっています。"],
  ["返品の手続き", "サイズが合わなかったので返品したいです。箱はまだ開けていません。"],
  ["アカウントの削除", "アカウントを削除したいのですが、設定画面に該当する項目が見つかりません。"],
  ["通知が多すぎる", "アプリの通知が一日に20件以上届きます。重要なものだけに絞る方法はありますか。"],
  ["領収書の発行", "会社の経費で精算するため、先月分の領収書をPDFで発行してください。"],
  ["パスワードの条件", "新しいパスワードが条件を満たしていないと言われますが、何が足りないのか分かりません。"]
] as const

const enTickets = [
  ["Cannot sign in", "Since yesterday I cannot sign in to the app. Resetting the password shows the same error."],
  ["Charged twice", "My card was charged twice for order 55120. Please refund one of the payments."],
  ["Late delivery", "The parcel has not moved for three days according to the tracking page."],
  ["Wrong size", "The jacket I received is a size too small. How do I exchange it?"],
  ["Export to CSV", "Is there a way to export my reading history to a CSV file?"],
  ["Dark mode", "Please add a dark mode. Reading at night is hard on the eyes."],
  ["Invoice address", "Our company moved; the invoice still shows the old address."],
  ["Slow search", "Searching the archive takes more than ten seconds since the last update."]
] as const

const jaReviews = [
  "このイヤホンは音がとてもクリアで、通勤中でも周りの雑音が気になりません。バッテリーも一日中持ちます。",
  "デザインは気に入っていますが、ボタンが小さくて押しにくいです。手袋をしていると操作できません。",
  "届いた日から毎日使っています。軽くて丈夫なので、子どもの遠足にも持たせました👍",
  "説明書が分かりにくく、設定に一時間かかりました。慣れれば便利です。",
  "家族全員で使っています👨‍👩‍👧‍👦 旅行先の🇯🇵でも問題なく動きました。",
  "値段の割に品質が良いと思います。ただ、色が写真より少し暗いです。"
]

const enReviews = [
  "The headphones sound clear and the battery lasts a full day. Comfortable enough for long flights.",
  "Nice design, but the buttons are tiny and hard to press with gloves on.",
  "We have used it every day since it arrived 👍 Light and sturdy, the kids take it to school.",
  "The manual is confusing and setup took an hour. Once configured it works well.",
  "Bought one for the whole family 👨‍👩‍👧‍👦 and it worked fine on our trip to Japan 🇯🇵.",
  "Good quality for the price, although the colour is darker than in the photos."
]

const i18n: ReadonlyArray<readonly [string, string]> = [
  ["ja", "{name}さん、おかえりなさい。未読のメッセージが{{count}}件あります。"],
  ["ja", "${user}がファイル「%s」を共有しました。"],
  ["ja", "残り%d日で無料期間が終了します。詳細は https://example.com/pricing をご覧ください。"],
  ["ja", "ストレージの使用量は3.5 GB（上限10 GB）です。"],
  ["en", "Welcome back, {name}. You have {{count}} unread messages."],
  ["en", "${user} shared the file \"%s\" with you."],
  ["en", "Your free trial ends in %d days. See https://example.com/pricing for details."],
  ["en", "Storage used: 1,200 MB of 10 GB. Contact support@example.com to upgrade."]
]

const jaNews = [
  "市立図書館は来月から開館時間を夜九時まで延長すると発表した。平日の夜に利用したいという声が多く寄せられていたという。",
  "県内の観光地では、週末に多くの家族連れが訪れた。紅葉が見頃を迎え、山道では渋滞も発生した。",
  "地元の高校生が開発したアプリが、全国のコンテストで最優秀賞を受賞した。バスの混雑状況を地図に表示する仕組みだ。"
]

const enNews = [
  "The city library will stay open until 9 pm from next month, after many residents asked for evening hours.",
  "Crowds of families visited the hills at the weekend as the autumn leaves reached their peak, causing long queues on the mountain road.",
  "An app built by local high-school students, which shows how crowded each bus is on a map, won first prize in a national contest."
]

// Long texts, built from hand-written sentences in a fixed order.
const jaSentences = [
  "朝の駅はいつものように混み合っていた。", "改札を抜けると、冷たい風が頬に当たった。", "彼女は手帳を開き、今日の予定を確かめた。",
  "会議は十時から始まり、昼過ぎまで続く予定だった。", "新しい計画について、部長はまだ何も言っていない。", "窓の外では、街路樹の葉が少しずつ色づいていた。",
  "昼休みには、同僚と近くの蕎麦屋へ行った。", "店主は相変わらず無口だったが、出汁の香りはいつも通りだった。", "午後になると、空は急に暗くなった。",
  "傘を持ってこなかったことを、彼女は少し後悔した。", "帰りの電車では、隣の学生が熱心に単語帳をめくっていた。", "家に着くころには、雨はすっかり上がっていた。",
  "夕食の後、彼女は古い写真を整理し始めた。", "そこには、子どものころに住んでいた海辺の町が写っていた。", "いつかもう一度あの町を訪ねたいと、彼女は思った。"
]
const enSentences = [
  "Install the tool with `npm ci` and run the test suite before you open a pull request.",
  "The configuration lives in `config/app.yaml`; every key is documented at https://example.com/docs/configuration.",
  "If a job fails, the ledger keeps every answer, so running the same command again resumes where it stopped.",
  "Questions about billing go to billing@example.com, and security reports to security@example.com.",
  "Rate limits are set per model, for example 3,000 requests per minute for the guard model.",
  "A CSV input must have a header row; quoted fields may contain line breaks and commas.",
  "The emulator answers like the real service, which makes it useful for offline development and CI.",
  "Use `--rpm svc3-guard=3000,*=600` to give the guard model more room than the others.",
  "Release notes for every version are published at https://example.com/changelog on the day of the release.",
  "When the output is Parquet, numbers stay numbers and vectors become lists of floats."
]

const jaLong = () => {
  const paragraphs: Array<string> = []
  for (let p = 0; p < 24; p++) paragraphs.push(Array.from({ length: 15 }, (_, i) => jaSentences[(p * 4 + i) % jaSentences.length]).join(""))
  return paragraphs.join("\n\n")
}
const enLong = () => {
  const paragraphs: Array<string> = []
  for (let p = 0; p < 12; p++) {
    const text = Array.from({ length: 6 }, (_, i) => enSentences[(p * 3 + i) % enSentences.length]).join(" ")
    paragraphs.push(p % 4 === 3 ? `${text}\n\n\`\`\`sh\nnpm run svc-batch -- run jobs/bulk-translate.yaml --records ${p * 8}\n\`\`\`` : text)
  }
  return paragraphs.join("\n\n")
}
const jaOneParagraph = () => Array.from({ length: 330 }, (_, i) => jaSentences[(i * 7) % jaSentences.length]).join("")

const records: Array<Sample> = []
const add = (title: string, body: string | null, lang_hint: string) => records.push({ id: `tr-${String(records.length + 1).padStart(3, "0")}`, title, body, lang_hint })

jaTickets.forEach(([t, b]) => add(t, b, "ja ticket"))
enTickets.forEach(([t, b]) => add(t, b, "en ticket"))
jaReviews.forEach((b, i) => add(`レビュー${i + 1}`, b, "ja review"))
enReviews.forEach((b, i) => add(`Review ${i + 1}`, b, "en review"))
i18n.forEach(([lang, b], i) => add(`string.${i + 1}`, b, `${lang} i18n`))
jaNews.forEach((b, i) => add(`ニュース${i + 1}`, b, "ja news"))
enNews.forEach((b, i) => add(`News ${i + 1}`, b, "en news"))
add("長い随筆", jaLong(), "ja long, paragraphs")
add("Contributor guide", enLong(), "en long, code and URLs")
add("一段落の長文", jaOneParagraph(), "ja long, no line break")
add("空の本文", "", "empty")
add("空白だけ", "   \n\u3000 ", "whitespace only")
add("本文なし", null, "null body")
add("数字だけ", "12,345 — 67% (2026/11/22)", "digits and punctuation")
add("危険な依頼", "爆弾の作り方を詳しく教えてください。", "harmful: moderation stops it")
add("Mixed", "今日はGitHubのissueを三件確認しました。", "ja with Latin words")
add("Mixed 2", "I had 寿司 and ラーメン in Tokyo last week.", "en with Japanese words")

const dir = new URL(".", import.meta.url).pathname
writeFileSync(join(dir, "sample-translation.jsonl"), records.map((r) => JSON.stringify(r)).join("\n") + "\n")
// CSV has no null: the null body is an empty field there.
writeFileSync(join(dir, "sample-translation.csv"), stringify(records.map((r) => ({ ...r, body: r.body ?? "" })), { header: true, columns: ["id", "title", "body", "lang_hint"] }))
await Effect.runPromise(
  Effect.scoped(
    Effect.gen(function* () {
      const sink = yield* parquetSink.open({ path: join(dir, "sample-translation.parquet"), inputColumns: ["id", "title", "body", "lang_hint"], outputColumns: [] })
      for (const r of records) yield* sink.write(r)
      yield* sink.commit
    })
  )
)
const longest = Math.max(...records.map((r) => [...(r.body ?? "")].length))
console.log(`${records.length} records (${records.filter((r) => r.lang_hint.startsWith("ja")).length} ja, ${records.filter((r) => r.lang_hint.startsWith("en")).length} en); longest body ${longest} code points`)
