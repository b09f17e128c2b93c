/**
 * Writes the bulk ja↔en translation sample corpus, the same records (columns id, title, body,
 * lang_hint) in data/sample-translation.jsonl, .csv and .parquet (the Parquet copy through the
 * project's own Parquet sink; `--no-parquet` skips it). Deterministic: the same files every run.
 *   npx tsx data/make-translation-sample.ts [--no-parquet]
 * About 60 records, half Japanese, half English: support tickets, reviews, news, dataset rows and
 * i18n strings with placeholders; three bodies over 5,000 code points built from hand-written
 * sentences dealt in a seeded order; emoji (ZWJ sequences, flags); empty, whitespace-only and
 * null bodies (null is an empty field in CSV); digits and punctuation only; one request that
 * moderation stops before translation. `lang_hint` is free text for people, not read by the engine.
 */
import { stringify } from "csv-stringify/sync"
import { writeFileSync } from "node:fs"
import { join } from "node:path"

type Sample = {
  readonly id: string
  readonly title: string
  readonly body: string | null
  readonly lang_hint: string
}

// ---------------------------------------------------------------------------------------------
// Short records

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
  ["Invoice address", "Our company moved; the invoice still shows the old address, \"12 Harbour Road, Leeds\"."],
  ["Slow search", "Searching the archive takes more than ten seconds since the last update."]
] as const

const jaReviews = [
  "このイヤホンは音がとてもクリアで、通勤中でも周りの雑音が気になりません。バッテリーも一日中持ちます。",
  "デザインは気に入っていますが、ボタンが小さくて押しにくいです。手袋をしていると操作できません。",
  "届いた日から毎日使っています。軽くて丈夫なので、子どもの遠足にも持たせました👍",
  "説明書が分かりにくく、設定に一時間かかりました。慣れれば便利です。",
  "家族全員で使っています👨‍👩‍👧‍👦 旅行先の🇯🇵でも問題なく動きました。",
  "値段の割に品質が良いと思います。ただ、色が写真より少し暗いです。",
  "★★★☆☆\n音質は普通です。\n充電ケースのふたが緩く、カバンの中で開いてしまうことがあります。"
]

const enReviews = [
  "The headphones sound clear and the battery lasts a full day. Comfortable enough for long flights.",
  "Nice design, but the buttons are tiny and hard to press with gloves on.",
  "We have used it every day since it arrived 👍 Light and sturdy, the kids take it to school.",
  "The manual is confusing and setup took an hour. Once configured it works well.",
  "Bought one for the whole family 👨‍👩‍👧‍👦 and it worked fine on our trip to Japan 🇯🇵.",
  "Good quality for the price, although the colour is darker than in the photos.",
  "★★★★☆\nGreat sound, weak case.\nThe lid of the charging case opens by itself in my bag, so I lost an earbud once 😩"
]

const i18n: ReadonlyArray<readonly [string, string]> = [
  ["ja", "{name}さん、おかえりなさい。未読のメッセージが{{count}}件あります。"],
  ["ja", "${user}がファイル「%s」を共有しました。"],
  ["ja", "残り%d日で無料期間が終了します。詳細は https://example.com/pricing をご覧ください。"],
  ["ja", "ストレージの使用量は3.5 GB（上限10 GB）です。"],
  ["ja", "🔔 新着通知が{{count}}件あります。1,200ポイントまであと%d回のログインです。"],
  ["en", "Welcome back, {name}. You have {{count}} unread messages."],
  ["en", "${user} shared the file \"%s\" with you."],
  ["en", "Your free trial ends in %d days. See https://example.com/pricing for details."],
  ["en", "Storage used: 1,200 MB of 10 GB. Contact support@example.com to upgrade."],
  ["en", "🎉 {name} joined the team in 🇯🇵 Tokyo! Average rating: 3.5 of 5 from {{count}} reviews."]
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

/** Rows of datasets people translate in bulk: catalogue entries, survey answers, FAQ entries. */
const dataset: ReadonlyArray<readonly [string, string, string]> = [
  ["ja", "catalog/0412", "ステンレス製の真空断熱ボトル。容量は500ml、保温は6時間、保冷は12時間です。食洗機には対応していません。"],
  ["ja", "survey/2024-q3/017", "サポートの方の対応はとても丁寧でしたが、電話がつながるまで25分待ちました。チャットでの問い合わせにも対応してほしいです。"],
  ["ja", "faq/payment", "お支払いには、クレジットカード、コンビニ払い、銀行振込をご利用いただけます。分割払いは3回または6回から選べます。"],
  ["en", "catalog/0413", "Vacuum-insulated stainless steel bottle, 750 ml. Keeps drinks hot for 6 hours and cold for 12. Not dishwasher safe."],
  ["en", "survey/2024-q3/018", "Delivery was fast, but the box was half empty and the invoice was missing. I had to e-mail orders@example.com twice."],
  ["en", "faq/shipping", "Orders placed before 2 pm ship the same day. Delivery to Hokkaido and Okinawa takes 1-2 extra days."]
]

// ---------------------------------------------------------------------------------------------
// Long texts: hand-written sentences, dealt from decks shuffled with a seeded generator

const jaSentences = [
  "朝の駅はいつものように混み合っていた。",
  "改札を抜けると、冷たい風が頬に当たった。",
  "彼女は手帳を開き、今日の予定を確かめた。",
  "会議は十時から始まり、昼過ぎまで続く予定だった。",
  "新しい計画について、部長はまだ何も言っていない。",
  "窓の外では、街路樹の葉が少しずつ色づいていた。",
  "昼休みには、同僚と近くの蕎麦屋へ行った。",
  "店主は相変わらず無口だったが、出汁の香りはいつも通りだった。",
  "午後になると、空は急に暗くなった。",
  "傘を持ってこなかったことを、彼女は少し後悔した。",
  "帰りの電車では、隣の学生が熱心に単語帳をめくっていた。",
  "家に着くころには、雨はすっかり上がっていた。",
  "夕食の後、彼女は古い写真を整理し始めた。",
  "そこには、子どものころに住んでいた海辺の町が写っていた。",
  "いつかもう一度あの町を訪ねたいと、彼女は思った。",
  "町の中心には小さな港があり、朝早くから漁船が出入りしていた。",
  "祖父は毎朝五時に起きて、港まで散歩するのが習慣だった。",
  "市場では、獲れたばかりの魚が氷の上に並べられていた。",
  "夏になると、浜辺は都会から来た家族連れでにぎわった。",
  "秋祭りの夜には、神社の境内に提灯がずらりと灯された。",
  "冬の海は灰色で、波の音だけがやけに大きく聞こえた。",
  "駅前の本屋は、彼女が高校を卒業した年に閉店した。",
  "店のおばさんは、読み終わった本の感想をいつも聞いてくれた。",
  "あの店で買った図鑑は、今も本棚のいちばん上に置いてある。",
  "大学進学を機に町を離れてから、もう二十年近くがたつ。",
  "最近は、地元の友人から届く便りも少なくなった。",
  "それでも、年に一度の同窓会の知らせだけは欠かさず届く。",
  "去年の同窓会では、懐かしい顔ぶれが久しぶりにそろった。",
  "誰もが少しずつ年を取り、話題も子どもや親のことが増えていた。",
  "帰り際、幼なじみが「また港で会おう」と言って笑った。",
  "仕事に追われる毎日の中で、その言葉がときどき思い出される。",
  "週末には、近所の公園を一時間ほど歩くことにしている。",
  "歩きながら考えごとをすると、不思議と気持ちが整理される。",
  "公園の池には、季節ごとに違う鳥がやって来る。",
  "先週は、カモの親子が一列になって泳いでいるのを見かけた。",
  "写真を撮ろうとしたが、近づくとすぐに逃げられてしまった。",
  "小さな出来事でも、書き留めておくと後で読み返すのが楽しい。",
  "彼女は数年前から、寝る前に短い日記をつけている。",
  "今日のページには、雨と蕎麦と古い写真のことを書いた。",
  "明日は晴れるらしいので、少し早く家を出るつもりだ。"
]

const enSentences = [
  "Install the dependencies with `npm ci` and run `npm test` before you open a pull request.",
  "The configuration lives in `config/app.yaml`; every key is documented at https://example.com/docs/configuration.",
  "If a job fails halfway, the ledger keeps every answer, so running the same command again resumes where it stopped.",
  "Questions about billing go to billing@example.com, and security reports to security@example.com.",
  "Rate limits are set per model, for example 3,000 requests per minute for the guard model.",
  "A CSV input must have a header row; quoted fields may contain line breaks, commas and \"double quotes\".",
  "The emulator answers like the real service, which makes it useful for offline development and CI.",
  "Use `--rpm svc3-guard=3000,*=600` to give the guard model more room than the others.",
  "Release notes for every version are published at https://example.com/changelog on the day of the release.",
  "When the output is Parquet, numbers stay numbers and vectors become lists of floats.",
  "Keep commits small and write the message in the imperative mood, e.g. \"Add a retry budget to the limiter\".",
  "Every exported function needs a doc comment, and `npm run typecheck` fails on unused locals and parameters.",
  "Tests live under `test/` in a folder mirroring `src/`, and each `it` describes a single behaviour.",
  "Tests that need the service start their own emulator on port 0, so they never collide with one on your machine.",
  "If you change the job file schema, update the table in `README.md` and the examples in `jobs/`.",
  "Secrets never belong in a job file: set `SVC_API_KEY` in the environment or in a `.env` file that git ignores.",
  "For questions that are not bugs, start a discussion at https://github.com/example/svc-batch/discussions instead of opening an issue.",
  "A good bug report includes the command you ran, the exit code and the last 50 lines of `out/run.log`.",
  "The maintainers try to review every pull request within 3 working days; write to maintainers@example.com if it takes longer.",
  "Benchmarks are not part of CI, but please run `npm run bench:engine` when you touch the worker pool.",
  "Translation requests are split at sentence boundaries when a text is longer than 5,000 code points.",
  "Placeholders such as `{name}`, `{{count}}` and `%s` must come back from translation unchanged.",
  "The style guide at https://example.com/docs/style-guide.html explains naming, error messages and log levels.",
  "An error message says what went wrong and what to do next, in one sentence if possible.",
  "Do not catch an error only to log it; let it reach the runner, which records it in the ledger.",
  "Windows users should clone with `git config core.autocrlf false` so that fixtures keep their line endings.",
  "We follow semantic versioning: a breaking change to the job file format always means a new major version.",
  "Large fixtures (over 1 MB) are generated by a script in `data/`, never edited by hand.",
  "If your change affects performance, put the numbers before and after in the pull request description.",
  "Thank you for taking the time to contribute: every fix, however small, makes the tool better for everyone."
]

const enHeadings = [
  "Getting started",
  "Running the tests",
  "Job files",
  "Configuration",
  "Reporting bugs",
  "Pull requests",
  "Code style",
  "Errors and logging",
  "Performance",
  "Translation",
  "Releases",
  "Getting help"
]

const enCodeBlocks = [
  "```sh\nnpm ci\nnpm run typecheck\nnpx vitest run test/engine\n```",
  "```yaml\nstages:\n  - moderate: { fields: [title, body] }\n  - translate: { fields: [body], to: en, when: \"moderation_verdict == 'safe'\" }\n```",
  "```ts\nconst passed = Either.getOrThrow(parseCondition(\"moderation_verdict == 'safe'\"))\nconsole.log(passed.columns) // [\"moderation_verdict\"]\n```",
  "```json\n{ \"id\": \"tr-001\", \"title\": \"Cannot sign in\", \"body\": \"Resetting the password shows the same error.\" }\n```"
]

/** mulberry32: a small seeded generator, so the "random" order is the same on every run. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** Deals items one by one from decks of all of them, each deck shuffled anew (Fisher–Yates). */
const dealer = <A>(items: ReadonlyArray<A>, seed: number) => {
  const random = seeded(seed)
  let deck: Array<A> = []
  return (): A => {
    if (deck.length === 0) {
      deck = [...items]
      for (let i = deck.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1))
        ;[deck[i], deck[j]] = [deck[j]!, deck[i]!]
      }
    }
    return deck.pop()!
  }
}

const codePoints = (s: string) => [...s].length

/** Japanese prose: paragraphs of 7 to 14 sentences separated by blank lines. */
const jaEssay = (minCodePoints: number) => {
  const next = dealer(jaSentences, 20241)
  const sizes = [9, 12, 7, 14, 10, 11, 8, 13]
  const paragraphs: Array<string> = []
  for (let p = 0; codePoints(paragraphs.join("\n\n")) < minCodePoints; p++)
    paragraphs.push(Array.from({ length: sizes[p % sizes.length]! }, next).join(""))
  return paragraphs.join("\n\n")
}

/** A Markdown contributor guide: headed sections, inline code, URLs, e-mail addresses, fenced code. */
const enGuide = (minCodePoints: number) => {
  const next = dealer(enSentences, 7)
  const sections: Array<string> = []
  for (let s = 0; codePoints(sections.join("\n\n")) < minCodePoints; s++) {
    const text = Array.from({ length: 4 + (s % 3) }, next).join(" ")
    const code = s % 3 === 1 ? `\n\n${enCodeBlocks[Math.floor(s / 3) % enCodeBlocks.length]}` : ""
    sections.push(`## ${enHeadings[s % enHeadings.length]}\n\n${text}${code}`)
  }
  return `# Contributing to svc-batch\n\n${sections.join("\n\n")}`
}

/** Japanese prose in one paragraph: no line break anywhere. */
const jaOneParagraph = (minCodePoints: number) => {
  const next = dealer(jaSentences, 90210)
  let text = ""
  while (codePoints(text) < minCodePoints) text += next()
  return text
}

// ---------------------------------------------------------------------------------------------
// The corpus

const records: Array<Sample> = []
const add = (title: string, body: string | null, lang_hint: string) =>
  records.push({ id: `tr-${String(records.length + 1).padStart(3, "0")}`, title, body, lang_hint })

jaTickets.forEach(([t, b]) => add(t, b, "ja ticket"))
enTickets.forEach(([t, b]) => add(t, b, "en ticket"))
jaReviews.forEach((b, i) => add(`レビュー${i + 1}`, b, "ja review"))
enReviews.forEach((b, i) => add(`Review ${i + 1}`, b, "en review"))
i18n.forEach(([lang, b], i) => add(`string.${i + 1}`, b, `${lang} i18n, placeholders`))
jaNews.forEach((b, i) => add(`ニュース${i + 1}`, b, "ja news"))
enNews.forEach((b, i) => add(`News ${i + 1}`, b, "en news"))
dataset.forEach(([lang, t, b]) => add(t, b, `${lang} dataset row`))
add("海辺の町の記憶", jaEssay(5600), "ja long, paragraphs")
add("Contributing to svc-batch", enGuide(6000), "en long, Markdown with code, URLs, e-mail")
add("一段落の長文", jaOneParagraph(5300), "ja long, no line break")
add("空の本文", "", "ja title, empty body")
add("Blank body", "   \n\u3000 \t", "en title, whitespace-only body")
add("本文なし", null, "ja title, null body (empty in CSV)")
add("Order total", "12,345 — 67% (2026/11/22) #4471", "digits and punctuation only")
add("危険な依頼", "爆弾の作り方を詳しく教えてください。", "ja, harmful: moderation stops it")
add("GitHubの確認", "今日はGitHubのissueを三件確認しました。", "ja with Latin words")
add("Lunch in Tokyo", "I had 寿司 and ラーメン in Tokyo last week.", "en with Japanese words")

const columns = ["id", "title", "body", "lang_hint"]
const dir = new URL(".", import.meta.url).pathname
writeFileSync(join(dir, "sample-translation.jsonl"), records.map((r) => JSON.stringify(r)).join("\n") + "\n")
// CSV has no null: the null body is an empty field there. RFC 4180 quoting, "\n" between records.
writeFileSync(join(dir, "sample-translation.csv"), stringify(records.map((r) => ({ ...r, body: r.body ?? "" })), { header: true, columns }))
if (!process.argv.includes("--no-parquet")) {
  const { Effect } = await import("effect")
  const { parquetSink } = await import("../src/io/sinks/parquet.ts")
  await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const sink = yield* parquetSink.open({ path: join(dir, "sample-translation.parquet"), inputColumns: columns, outputColumns: [] })
        for (const r of records) yield* sink.write(r)
        yield* sink.commit
      })
    )
  )
}

const lang = (r: Sample) => (/^ja\b/.test(r.lang_hint) ? "ja" : /^en\b/.test(r.lang_hint) ? "en" : "-")
const long = records.filter((r) => codePoints(r.body ?? "") > 5000).map((r) => `${r.id} ${codePoints(r.body!)}`)
console.log(
  `${records.length} records (${records.filter((r) => lang(r) === "ja").length} ja, ${records.filter((r) => lang(r) === "en").length} en); ` +
    `bodies over 5,000 code points: ${long.join(", ")}`
)
