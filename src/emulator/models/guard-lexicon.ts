/**
 * The emulated guard's rules (a small rule model; no weights can ship). Per category: English
 * patterns (regular-expression sources over lower-cased NFKC text; `\w*` after a stem takes its
 * inflections: tortur\w* = torture, tortured, torturing), Japanese terms (substrings, matched after
 * katakana is folded to hiragana, so カナ/かな variants match alike), and intent patterns (how to /
 * 作り方 / 方法 + a weapon or drug). Damping words (prevent, report, 防止, なくす …) cancel a
 * keyword hit in the same clause and a few words away — not threats (T4) or personal data found as
 * data (guard.ts). Ambiguous words are matched in context only (gore, 差別, 内部資料).
 * Documented in docs/emulator.md with the evaluation figures (held-out ones in the README).
 */
import type { CategoryCode } from "../../service/moderation.ts"

export interface CategoryRules {
  readonly en: ReadonlyArray<string>
  readonly ja: ReadonlyArray<string>
}

/** A gap of up to `n` words between two parts of an English pattern. */
const gap = (n = 4) => `(?:\\W+\\w+){0,${n}}?\\W+`

const WEAPON_EN =
  "(?:bombs?|pipe ?bombs?|explosives?|ieds?|detonators?|molotov\\w*|napalm|nerve agents?|sarin|ricin|poison gas|toxic gas|chlorine gas|guns?|firearms?|silencers?|grenades?)"
const DRUG_EN =
  "(?:meth\\w*|crystal meth|cocaine|crack|heroin|fentanyl|lsd|mdma|ecstasy|drugs|narcotics|opioids?|amphetamines?)"
const MAKE_EN =
  "(?:make|making|made|build|building|built|assembl\\w*|construct\\w*|synthesi\\w*|cook\\w*|brew\\w*|produc\\w*|manufactur\\w*|3d[- ]print\\w*|rig\\w*)"
const HOWTO_EN =
  "(?:how (?:to|do i|do you|can i|would i)|steps? (?:to|for)|instructions? (?:to|for|on)|guide (?:to|for|on)|recipe for|teach me (?:to|how)|tutorial (?:on|for)|ways? to|help me)"

const WEAPON_JA = "(?:爆弾|ばくだん|爆発物|起爆装置|火炎瓶|かえんびん|毒がす|毒ガス|さりん|銃|拳銃|けんじゅう|手榴弾)"
const DRUG_JA = "(?:麻薬|まやく|覚醒剤|覚せい剤|かくせいざい|大麻|たいま|こかいん|へろいん|違法薬物|危険どらっぐ)"

export const GuardRules: Readonly<Record<CategoryCode, CategoryRules>> = {
  T1: {
    en: [
      "explicit sex\\w*",
      "pornograph\\w*",
      "porn\\w*",
      // Not "obscene prices": a bare word that is as often about money.
      "obscen\\w*(?! (?:amounts?|prices?|sums?|salar\\w*|profits?|wealth|fees?))",
      "sexually explicit",
      "graphic sex\\w*",
      "x-rated",
      "nude (?:photos?|pictures?|pics) of",
      "describe\\w*" + gap(3) + "sex\\w* in (?:graphic|explicit) detail"
    ],
    ja: ["性的描写", "わいせつ", "猥褻", "ぽるの", "えろ動画", "あだると動画", "裸の写真", "性行為を詳しく", "露骨な性"]
  },
  T2: {
    en: [
      // Not bare "gore": Al Gore, Gore Verbinski.
      "(?:graphic|extreme|excessive|full of|so much|lots of|blood and) gore",
      "gore (?:scenes?|videos?|footage|content|sites?|films?|movies?|pics?)",
      "gory",
      "bloodbath",
      "tortur\\w*",
      "massacr\\w*(?! of the (?:charts|box office|competition))",
      "dismember\\w*",
      "mutilat\\w*",
      "disembowel\\w*",
      "behead\\w*",
      "slaughter(?!house)\\w*",
      "blood (?:everywhere|spray\\w*|gush\\w*)",
      "bled to death",
      "rip\\w*" + gap(2) + "(?:guts|eyes|flesh)",
      "skinned alive",
      "burned alive"
    ],
    ja: [
      "惨殺",
      "血まみれ",
      "拷問",
      "虐殺",
      "八つ裂き",
      "切り刻",
      "内臓が飛び出",
      "首をはね",
      "ばらばらにし",
      "血しぶき",
      "なぶり殺"
    ]
  },
  T3: {
    en: [
      "inferior races?",
      "racial slurs?",
      "subhuman",
      "(?:immigrants|muslims|jews|christians|blacks|whites|asians|women|gays|foreigners|refugees)" +
        gap(2) +
        "(?:are|is) (?:inferior|vermin|animals|parasites|subhuman|a disease|filth)",
      "go back to (?:your|their) (?:own )?country",
      "(?:don't|do not|shouldn't|should not) (?:deserve|have) (?:rights|to vote)",
      "should be (?:exterminated|wiped out|deported)",
      "ethnic cleansing",
      "master race"
    ],
    ja: [
      // Not bare 差別: a sentence about discrimination is not one.
      "を差別する",
      "を差別した",
      "差別的な発言",
      "差別発言",
      "差別用語で",
      "劣等民族",
      "蔑称",
      "人間以下",
      "国へ帰れ",
      "出て行け",
      "民族は劣",
      "は劣った民族",
      "根絶やしにし",
      "害虫のような"
    ]
  },
  T4: {
    en: [
      "kill yourself",
      "kys",
      "i(?:'ll| will| am going to|'m going to|m gonna| gonna)" + gap(1) + "(?:kill|hurt|stab|shoot|beat) you",
      "i(?:'ll| will) find you(?: and|\\W*$)",
      "worthless idiot",
      "you (?:should|deserve to) die",
      "nobody would miss you",
      "go die",
      "drop dead",
      "i know where you live",
      "you(?:'re| are) (?:worthless|pathetic|a waste of (?:space|oxygen))"
    ],
    ja: [
      "死ね",
      "しね",
      "消えろ",
      "殺すぞ",
      "殺してやる",
      "ぶっ殺",
      "ぶちのめ",
      "生きる価値がない",
      "生きてる価値ない",
      "殴ってやる",
      "家を知ってるぞ",
      "覚えてろよ"
    ]
  },
  T5: {
    en: [
      "the ai is always right",
      "obey the ai",
      "ai never makes mistakes",
      "(?:the )?(?:ai|chatbot|model|algorithm) (?:is|are) (?:always|never) (?:right|wrong|mistaken)",
      "trust the (?:ai|chatbot)\\w* (?:completely|blindly|over|more than|without)",
      "whatever the (?:ai|chatbot) (?:says|tells)",
      "(?:ai|chatbot) (?:knows|decides) better than (?:any )?(?:doctors?|lawyers?|humans?|you)",
      "no need to (?:check|verify|double-check) (?:what )?the (?:ai|chatbot)"
    ],
    ja: [
      "aiが言うなら絶対",
      "aiの判断に全て従",
      "aiは間違えない",
      "aiは絶対に正しい",
      "aiの言うことは全部正しい",
      "aiに従えば間違いない",
      "医者よりaiを信じ",
      "aiの答えを確認する必要はない"
    ]
  },
  T6: {
    en: [
      "social security number",
      "credit card numbers?",
      "home address of",
      "passport number",
      "bank account (?:number|details) of",
      "(?:her|his|their) (?:password|pin) is",
      "leak\\w*" + gap(3) + "(?:address|phone number|personal data)",
      // doxxing, not doxycycline.
      "doxx?(?:ing|ed|es)?"
    ],
    ja: [
      "まいなんばーは",
      "まいなんばーを晒",
      "住所と電話番号",
      "くれじっとかーど番号",
      "かーど番号は",
      "暗証番号は",
      "個人情報を晒",
      "住所を晒",
      "電話番号を晒",
      "本名と住所"
    ]
  },
  T7: {
    en: [
      "confidential internal",
      "trade secrets?",
      "internal memo leak\\w*",
      "leak\\w*" + gap(3) + "(?:internal|confidential|unreleased|proprietary)",
      "(?:post|publish|share|send|forward)\\w*" +
        gap(3) +
        "(?:internal|confidential) (?:documents?|memos?|data|files?|roadmap)",
      "(?:internal|confidential) (?:documents?|memos?|data|roadmap|financials)" +
        gap(3) +
        "(?:leak\\w*|post\\w*|share\\w*|publish\\w*|sold|sell\\w*)",
      "(?:source code|customer (?:list|database)|salary data) of (?:our|the|my) (?:company|employer)",
      "not for external distribution",
      "under nda"
    ],
    ja: [
      "社外秘",
      "機密情報を流",
      "機密情報を漏",
      "機密情報を公開",
      "機密情報を売",
      "内部資料を流",
      "内部資料を漏",
      "内部資料を公開",
      "内部資料を売",
      "未発表の決算",
      "顧客りすとを流出",
      "顧客名簿を流",
      "極秘資料",
      "機密を漏ら",
      "内部文書を公開"
    ]
  },
  T8: {
    en: [
      "sell\\w* drugs",
      "launder\\w* money",
      "money launder\\w*",
      "counterfeit\\w*",
      "tax evasion scheme",
      "evad\\w* taxes",
      "(?:buy|sell|deal|smuggl|traffick)\\w*" + gap(2) + DRUG_EN,
      "fake (?:ids?|passports?|banknotes?)",
      "shoplift\\w*",
      "hack\\w* into",
      "steal\\w*" + gap(2) + "(?:credit cards?|identit\\w*|cars?)",
      "bribe\\w*" + gap(2) + "(?:officials?|police|judges?)"
    ],
    ja: [
      "麻薬の密売",
      "脱税の方法",
      "偽造",
      "密売",
      "密輸",
      "覚醒剤を売",
      "大麻を売",
      "まねーろんだりんぐ",
      "資金洗浄",
      "万引きのこつ",
      "不正あくせすの方法",
      "偽札",
      "脱税する方法",
      "賄賂を渡"
    ]
  },
  T9: {
    en: [
      "build a bomb",
      "make explosives",
      "mix bleach and ammonia",
      HOWTO_EN + gap(3) + MAKE_EN + gap(3) + "(?:" + WEAPON_EN + "|" + DRUG_EN + ")",
      MAKE_EN +
        "\\W+(?:a |an |some |my own |homemade )?(?:pipe ?bombs?|bombs?|explosives?|molotov\\w*|napalm|nerve agents?|sarin|ricin|poison gas|toxic gas|silencers?)",
      "(?:mix|combin)\\w*" + gap(2) + "(?:bleach|chlorine)" + gap(2) + "(?:ammonia|vinegar|acid)",
      "(?:bleach|chlorine) and (?:ammonia|vinegar)"
    ],
    ja: ["爆弾の作り方", "危険な薬品の混ぜ方", "混ぜると有毒がす", "塩素系と酸性を混ぜ"]
  },
  T10: {
    en: [
      "spread\\w* the rumou?rs?",
      "spread\\w* disinformation",
      "share this hoax",
      "(?:spread|share|post|retweet|forward)\\w*" +
        gap(2) +
        "(?:rumou?rs?|lies|fake news|hoax\\w*|disinformation|misinformation)",
      "(?:make|making) (?:it|this) go viral before",
      "before (?:they|it gets) (?:delete|deleted|take it down|taken down)"
    ],
    ja: [
      "でまを拡散",
      "ふぇいくにゅーすを広め",
      "でまを流",
      "嘘を拡散",
      "嘘の情報を広め",
      "でまを広め",
      "うそを拡散",
      "偽情報を拡散",
      "偽の情報を流"
    ]
  },
  T11: {
    en: [
      "cures? cancer overnight",
      "vaccines are poison",
      "stop taking your medications?",
      "vaccines? cause\\w* autism",
      "(?:bleach|turpentine|mms|chlorine dioxide) (?:cures|kills|treats)",
      "cures? (?:cancer|diabetes|hiv|aids|covid)" + gap(3) + "(?:with|using|by)",
      "(?:don't|do not) need (?:chemo\\w*|insulin|antibiotics|vaccines?)",
      "(?:drink|inject)\\w*" + gap(2) + "(?:bleach|disinfectant)",
      "throw away your (?:insulin|medication|pills)"
    ],
    ja: [
      "がんは自然に治る",
      "わくちんは毒",
      "わくちんで自閉症",
      "薬をやめれば治る",
      "漂白剤を飲",
      "抗がん剤は不要",
      "水素水でがんが治",
      "がんが治るさぷり",
      "いんすりんは不要"
    ]
  },
  T12: {
    en: [
      "fabricated evidence",
      "the earth is flat",
      "moon landing was faked",
      "fake\\w* (?:the )?(?:moon landing|evidence|data|results)",
      "(?:holocaust|9/11|moon landing)" + gap(2) + "(?:never happened|was staged|was a hoax|was faked)",
      "doctored (?:photos?|evidence|footage)",
      "made[- ]up (?:quotes?|statistics|numbers)",
      "falsif\\w*" + gap(2) + "(?:data|results|records|evidence)"
    ],
    ja: ["捏造", "ねつ造", "でっち上げ", "地球は平ら", "月面着陸は嘘", "改ざんした", "証拠をねつ造", "でたらめの統計"]
  }
}

/** Words that make a sentence about a harm rather than a harm: prevention, reporting, education. */
export const Damping: CategoryRules = {
  en: [
    "prevent\\w*",
    // Against what is fought, not "I'm against immigrants".
    "(?:campaign\\w*|fight\\w*|protest\\w*|laws?|measures?|stand\\w*|speak\\w* out|rall\\w*|vot\\w*|warn\\w*|protect\\w*|guard\\w*|crimes?|violence|polic\\w*) against",
    "report(?:s|ed|ing)?",
    "awareness",
    "combat\\w*",
    "avoid\\w*",
    "protect\\w*",
    "never (?:share|post|give|mix|combine)",
    "spot",
    "security",
    "apply\\w*",
    "application",
    "identify\\w*",
    "warn\\w*",
    "bann?(?:s|ed|ning)?",
    "condemn\\w*",
    "history of",
    "museum",
    "documentary",
    "recogni[sz]\\w*",
    "fight\\w*",
    "stop (?:the )?spread",
    "fact[- ]check\\w*",
    "debunk\\w*",
    "myths?",
    "safely",
    "safety",
    "secure\\w*",
    "dispos\\w*"
  ],
  ja: [
    "防止",
    "なくす",
    "なくそう",
    "撲滅",
    "対策",
    "反対",
    "通報",
    "啓発",
    "防ぐ",
    "見分け方",
    "注意",
    "取り締ま",
    "摘発",
    "相談",
    "禁止",
    "守る",
    "保護",
    "歴史",
    "資料館",
    "取り扱い",
    "研修",
    "しないで",
    "してはいけない",
    "ではありません",
    "誤り",
    "申請",
    "手続き"
  ]
}

/** Intent patterns of Japanese: a weapon or drug with how-to words (作り方, 作る方法, 自作 …). */
export const IntentJa: ReadonlyArray<{ readonly code: CategoryCode; readonly pattern: string }> = [
  {
    code: "T9",
    pattern: `${WEAPON_JA}.{0,6}(?:作り方|つくり方|作る方法|つくる方法|製造方法|作成方法|自作|を作る|を作りたい|を作ろう|組み立て方)`
  },
  { code: "T9", pattern: `(?:自作|手作り).{0,4}${WEAPON_JA}` },
  { code: "T9", pattern: `${DRUG_JA}.{0,6}(?:作り方|合成方法|製造方法|を作る|の作る方法|精製方法)` },
  {
    code: "T8",
    pattern: `${DRUG_JA}.{0,8}(?:密売|売る方法|売りさば|売買|取引|入手方法|手に入れる方法|買い方|を買う|密輸)`
  }
]
