/**
 * The guard's phrase patterns (the keywords are in guard-lexicon.ts): harm said in ordinary words,
 * which a keyword list misses — a group joined to a slur-like predicate ("Mexicans are all
 * rapists", 外国人は…泥棒ばかり), a threat or insult aimed at "you" (I'll make you regret,
 * お前みたいなクズ), intent or a how-to joined to an act (how many pills … to overdose, 楽に死ねる
 * 方法, 他人のアカウントに不正ログイン), an AI trusted over a doctor, a person's address joined to
 * posting it, company data joined to taking it out, a remedy joined to dropping treatment.
 * English sources are regular expressions over lower-cased NFKC text, matched as whole words;
 * Japanese ones over text whose katakana is folded to hiragana (write them in either kana; no
 * upper-case escapes such as \D: the text and the pattern are lower-cased).
 * Tuned on test/emulator/models/guard-dev.jsonl only; measured on the held-out sets (docs/emulator.md).
 */
import type { CategoryCode } from "../../service/moderation.ts"
import type { CategoryRules } from "./guard-lexicon.ts"

/** Up to `n` words between two parts of an English pattern (non-greedy). */
const gap = (n: number) => `(?:\\W+\\w+){0,${n}}?\\W+`
/** `a` and `b` in either order with up to `n` words between. */
const near = (a: string, b: string, n: number) => `(?:${a}${gap(n)}${b}|${b}${gap(n)}${a})`
const any = (...xs: ReadonlyArray<string>) => `(?:${xs.join("|")})`

// ---- English fragments ------------------------------------------------------------------------

/** Whose: a third person's, not the speaker's own ("my ex's", "the neighbour's", "her"). */
const YOU_POSS = "(?:his|her|their|someone(?: else)?'s|(?:my |your |a |the |this |that )?\\w+'s)"
/** A gap of up to three words none of which negates ("are not criminals" is no slur). */
const PLAIN_GAP = "(?: (?!not\\b|never\\b|no\\b)\\w+){0,3}?"
const SEX_EN =
  "(?:(?:have|having|had) sex|sex scenes?|oral sex|intercourse|orgasms?|naked bod(?:y|ies)|nudes|erotic|genitals?)"
const WRITE_EN = "(?:write|describe|generate|create|narrate|depict|roleplay|draw|make me|story|stories|scene)\\w*"
/** Parts of a body that a violent description dwells on (not skin or bones: cooking). */
const BODY_EN =
  "(?:skull|brains?|throat|eyes?|eyeballs?|guts|intestines|entrails|fingers?|hands?|limbs?|arms?|legs?|ears?|tongue|teeth|toes?|nails)"
const OF_SOMEONE = "(?:his|her|their|(?:the |a )?(?:man|woman|boy|girl|victim|prisoner|villager|hostage)(?:'s|s'))"
const GROUP_EN = any(
  "black (?:people|men|women|folks?)",
  "blacks",
  "africans",
  "jews",
  "jewish people",
  "muslims",
  "arabs",
  "mexicans",
  "latinos",
  "hispanics",
  "immigrants",
  "migrants",
  "refugees",
  "foreigners",
  "asians",
  "chinese(?: people)?",
  "indians",
  "gypsies",
  "gays",
  "gay (?:people|men)",
  "lesbians",
  "homosexuals",
  "trans (?:people|women|men)",
  "transgender (?:people|women|men)",
  "women",
  "disabled people",
  "the disabled",
  "christians",
  "hindus",
  "whites",
  "white people",
  "koreans"
)
const GROUP_SLUR_PREDICATE = any(
  "inferior",
  "stupid",
  "dumb(?:er)?",
  "subhuman",
  "animals",
  "vermin",
  "rats",
  "parasites",
  "pigs",
  "apes",
  "monkeys",
  "cockroaches",
  "an? (?:disease|plague|cancer|virus|burden)",
  "burdens",
  "criminals",
  "rapists",
  "terrorists",
  "thieves",
  "savages",
  "freaks",
  "diseased",
  "filthy",
  "dirty",
  "lazy",
  "evil",
  "ruining (?:the|our|this) (?:world|country)"
)
const AI_EN = "(?:ai|chatbot|chat ?gpt|gpt|the bot|the model|the algorithm|the assistant)"
const EXPERT_EN =
  "(?:doctors?|cardiologist|physician|specialist|gp|nurse|lawyer|attorney|accountant|pharmacist|vet|therapist|financial advis[eo]r|second opinion|hospital|emergency room|professional)"
const STAKES_EN =
  "(?:medications?|meds|treatment|surgery|pills|chemo\\w*|diagnos\\w*|savings|investments?|stocks|retirement)"
const DISMISS_EN = any(
  `(?:\\w+n't|not|never|no need to|without) (?:\\w+ )?(?:go(?:ing)? to|see|ask|consult|call|need|bother with|check with|talk to|visit)\\w* (?:a |an |the |my |your )?(?:own )?${EXPERT_EN}`,
  `(?:instead of|over|rather than|more than|better than) (?:a |an |the |my |your )?(?:own )?${EXPERT_EN}`,
  "without (?:checking|asking|verifying)",
  `(?:put|invest\\w*|bet)${gap(2)}(?:whole|entire|all)${gap(2)}(?:savings|money|retirement)`
)
const PII_EN =
  "(?:(?:home |street |email )?address(?:es)?|phone numbers?|cell(?:phone)? numbers?|mobile numbers?|(?:exact |current |live )?location|workplace|(?:full|real) name|licen[cs]e number|medical records?|health records?|ssn|social security number)"
const ORG_DATA_EN = any(
  "(?:customer|client|user|employee|patient|member)s?'? (?:list|database|data|records|details|files|emails)",
  "source code",
  "internal (?:\\w+ )?(?:pricing|sheets?|documents?|memos?|emails?|plans?|figures|data|reports?|numbers|files)",
  "unreleased (?:\\w+ )?(?:earnings|results|numbers|figures|products?|designs?|specs?|plans?)",
  "(?:merger|acquisition) plans?",
  "(?:pricing|salary) (?:sheets?|data|lists?|spreadsheets?|figures)"
)
/** Taking data out by selling or leaking it, whoever receives it. */
const EXFIL_EN = "(?:leak|sell|sold|steal|stole|smuggl|dump)\\w*"
/** Whoever should not receive company data (with a neutral verb: send, forward, bring). */
const OUTSIDER_EN = any(
  "to (?:(?:the |an? )?reporters?|journalists?|my new (?:employer|job|company)|the highest bidder|the dark ?web|(?:a |my )?friends?)",
  "free for anyone",
  "on the dark ?web",
  "before (?:(?:i|he|she|we) )?(?:leav\\w*|left)"
)
const HOWTO_EN =
  "(?:how (?:to|do i|do you|can i|would i|could i)|ways? to|(?:best|easiest|safest|quickest|fastest) way to|teach me|help me|steps? to)"
const CRIME_EN = any(
  "steal",
  "rob",
  "burgl\\w*",
  "pickpocket",
  "shoplift",
  "launder (?:money|cash|funds|the proceeds)",
  "embezzl\\w*",
  "forge (?:a |the )?(?:signatures?|documents?|checks?|cheques?|passports?|ids?|notes?|prescriptions?)",
  "counterfeit",
  "bribe",
  "blackmail",
  "extort",
  "defraud",
  "smuggle",
  "hotwire",
  "pick (?:a|the) lock",
  "break into (?:a |an |the |my |his |her |their |someone's )?(?:\\w+ )?(?:house|home|car|building|apartment|flat|account|phone|computer|safe|store|shop)",
  "cook the books"
)
const DISEASE_EN =
  "(?:cancer|diabetes|hiv|aids|covid|autism|kidney disease|heart disease|tumou?rs?|infections?|malaria|tuberculosis|asthma|hypertension|high blood pressure|alzheimer\\w*|depression|measles|dementia|heart attacks?|strokes?)"
const REMEDY_EN =
  "(?:urine|bleach|turpentine|baking soda|garlic|honey|vinegar|cinnamon|essential oils?|colloidal silver|prayer|fasting|coffee enemas?|\\w+ juice|herbs?|crystals?|homeopath\\w*|coughing)"
const TREATMENT_EN =
  "(?:chemo\\w*|insulin|antibiotics|vaccin\\w*|medications?|meds|medicine|treatment|radiation|surgery|inhalers?|steroids?|pills)"
const CURE_CLAIM_EN =
  "(?:cures?|cured|heals?|healed|clears?|reverses?|fixes|will (?:cure|heal|clear|fix|treat)|can (?:cure|heal|reverse|fix|treat)|is (?:harmless|poison|toxic|a scam)|are (?:poison|toxic|harmful|a scam|useless)|builds? immunity|works better than)"
const TOPIC_EN =
  "(?:the holocaust|holocaust|moon landings?|climate change|global warming|evolution|covid|the pandemic|vaccines?|9/11|the tsunami|the earthquake|the election|sandy hook|fossils|dinosaurs|the pyramids?)"
const HOAX_EN =
  "(?:(?:is|was|are|were) (?:an? |all )?(?:total |complete |big |giant )?(?:hoax|lie|myth|fake|fraud|scam|psyop|false flag|inside job|cover-?up|fabrication|made up|staged|faked|planted|exaggerated|never happened))"

// ---- Japanese fragments (hiragana for katakana words: the text is folded so) -----------------

const AI_JA = "(?:ai|ちゃっとぼっと|chat ?gpt|gpt|ぼっと)"

export const GuardPhrases: Readonly<Record<CategoryCode, CategoryRules>> = {
  T1: {
    en: [
      WRITE_EN + gap(10) + SEX_EN,
      SEX_EN + gap(8) + "(?:in (?:full|graphic|explicit|vivid) detail|every detail)",
      "(?:send|share|post|leak|get)\\w*" + gap(2) + "nudes",
      "deep ?fake (?:nudes?|porn\\w*)",
      "sex (?:between|with (?:a |an )?(?:minors?|child|children|kids?|teen\\w*|students?))",
      "(?:teen\\w*|minors?|underage|children|kids?|schoolgirls?)" +
        gap(4) +
        "(?:having sex|nudes?|erotic|sexual (?:acts?|content|images?|photos?))"
    ],
    ja: [
      "えろ(?:い|画像|写真|動画|小説)",
      "官能(?:小説|的)",
      "いやらしく.{0,10}?(?:書|描|詳し)",
      "卑猥な",
      "下着姿",
      "全裸",
      "盗撮",
      "隠し撮り",
      "せっくす(?:の|を|している|する)?(?:場面|しーん|描写|動画|画像|写真)",
      "体を重ね",
      "裸の?(?:写真|画像|動画|姿)",
      "(?:性行為|体を重ね|せっくす).{0,20}?(?:生々しく|詳しく|描写)",
      "(?:生々しく|詳しく).{0,10}?性行為"
    ]
  },
  T2: {
    en: [
      "(?:cut|chopp?|hack|saw|slic|ripp?|tear|tore|torn|gouge|pluck)\\w*" +
        gap(2) +
        "(?:off|out)" +
        gap(1) +
        OF_SOMEONE +
        gap(1) +
        BODY_EN,
      "(?:cut|chopp?|hack|saw|slic|ripp?|tear|tore|torn|gouge|pluck)\\w*" +
        gap(1) +
        OF_SOMEONE +
        gap(1) +
        BODY_EN +
        " (?:off|out)",
      OF_SOMEONE +
        gap(1) +
        BODY_EN +
        "(?: were| was| got)? (?:cut|chopped|hacked|ripped|torn|sawed|gouged) (?:off|out)",
      "(?:slit|slash|cut)\\w*(?: \\w+){0,2} throats?",
      "(?:brains?|guts|intestines|entrails)" +
        gap(2) +
        "(?:on the (?:floor|ground|sidewalk|pavement|wall|road|street)|all over|splatter\\w*|blown out|hanging out|everywhere)",
      "(?:stabb?|slash|bludgeon|stomp)\\w*" +
        gap(3) +
        "(?:over and over|again and again|repeatedly|until (?:he|she|it|they) (?:stopped|died|was dead|were dead|bled))",
      "(?:pools?|puddles?|sea) of (?:his |her |their )?(?:own )?blood",
      "chok\\w* on (?:his|her|their) (?:own )?blood",
      "(?:skinned|flayed|buried)" + gap(3) + "alive",
      "on fire" + gap(4) + "(?:still )?alive",
      "gouge\\w* out"
    ],
    ja: [
      "めった刺し",
      "血の海",
      "生きたまま.{0,6}?(?:皮|埋|煮|刻|解体)",
      "(?:犬|猫|動物|人間|被害者)の皮を(?:剥|は)",
      "(?:指|腕|手首|足|耳|首|舌|鼻)を.{0,8}?切り落と",
      "脳みそ(?:が|を)?.{0,4}?(?:飛び散|ぶちまけ)",
      "頭を.{0,10}?(?:殴りつけ|叩き割|かち割)",
      "(?:叩きつけて|殴って|蹴って|刺して|首を絞めて)殺",
      "(?:殴り|刺し|焼き|絞め|嬲り|なぶり)殺",
      "死体を.{0,4}?(?:ばらばら|切断|解体)"
    ]
  },
  T3: {
    en: [
      GROUP_EN + "(?: \\w+){0,2}? (?:are|is|were)" + PLAIN_GAP + " " + GROUP_SLUR_PREDICATE,
      GROUP_EN +
        gap(3) +
        "(?:should|must|need to|needs to|ought to|deserve to)(?:n't| not| never)?(?: \\w+){0,2}? (?:be|have been|get) (?:\\w+ )?(?:killed|exterminated|deported|locked up|sterili[sz]ed|aborted|gassed|shot|wiped out|eradicated|cured)",
      GROUP_EN + gap(2) + "(?:should(?:n't| not| never)|must not|can't|cannot) be allowed",
      GROUP_EN + " (?:control|run|own) (?:the )?(?:banks|media|world|government)",
      "belongs? in the kitchen",
      "n[i1]gg(?:er|a)s?",
      "faggots?",
      "kikes?",
      "wetbacks?",
      "towelheads?",
      "ragheads?",
      "trann(?:y|ies)"
    ],
    ja: [
      "(?:外国人|外人|黒人|在日|韓国人|中国人|朝鮮人|障害者|障がい者|(?<!彼)女|女性|同性愛者|げい|ほも|おかま|移民|難民|ゆだや人|いすらむ教徒)(?:は|って|なんて|なんか|ども|みたいな|の連中|に|を|が)" +
        ".{0,24}?(?:汚い|汚くて|劣って|劣等|頭が悪|馬鹿|ばか|気持ち悪|役に立たない|価値がない|出ていけ|出て行け|追い出(?:せ|すべき|そう|してしまえ)|いなくなれ|なくしてしまえ|害虫|ごきぶり|猿|道具にすぎない|産む機械|治療すべき|雇うべきではない|(?:犯罪者|泥棒|病気|異常|無駄)(?:ばかり|だらけ|だ|で|なんだ|だから|なので|しかいない|である))"
    ]
  },
  T4: {
    en: [
      "(?:i|we)(?:'ll| will|'m going to| am going to|'re going to| are going to| gonna| swear i'll| swear i will)" +
        gap(2) +
        any(
          "make you (?:regret|pay|suffer|bleed|sorry)",
          "(?:smash|break|rip|cut|burn|bash|kick) your",
          "end you",
          "ruin you",
          "hunt you",
          "put you in (?:the |a )?(?:hospital|grave|ground|wheelchair|coffin)"
        ),
      "sleep with one eye open",
      "you(?:'re| are) (?:going to|gonna) (?:regret|pay|die|bleed|suffer)",
      "(?:i|we) know where (?:you|your \\w+) (?:live|work|go to school|sleep)",
      "(?:i )?hope (?:you|your \\w+) (?:get \\w+ and )?(?:die|dies|rot|suffer|get cancer)",
      "you(?:'re| are)(?: such)?(?: an?)?" +
        PLAIN_GAP.replace("{0,3}", "{0,2}") +
        " (?:waste of (?:space|air|oxygen|skin)|scum(?:bag)?|pig|loser|idiot|moron|bitch|cunt|whore|slut|freak|disgrace)",
      "nobody (?:likes|loves|wants|cares about) you"
    ],
    ja: [
      "(?:殴っ|刺し|殺し|潰し|燃やし|埋め|沈め|火をつけ|痛い目にあわせ|痛い目に遭わせ|後悔させ|ぼこぼこにし|半殺しにし|へし折っ)て(?:やる|やっから)",
      "覚悟しろ",
      "夜道に(?:は)?気をつけ",
      "ぶん殴",
      "ぶっ飛ばす",
      "(?:殴る|刺す|潰す|殺す|燃やす|しばく)ぞ",
      "(?:お前|おまえ|てめえ|てめー|貴様)(?:みたいな|なんか|なんて|は|って)?.{0,12}?(?:消えて(?:くれ|しまえ)|消えろ|死んでくれ|生まれてこなければ|役立たず)",
      "(?:お前|おまえ|てめえ|貴様)(?:は|って)?(?:くず|かす)",
      "(?:くず|ごみ|かす)(?:みたいな|野郎|人間)",
      "(?:このくず|このかす|このぶす)",
      "(?:死|し)ね(?!る|ます|ない|なかっ|ば|た)",
      "二度と顔を見せるな",
      "死んでろ",
      "死んでしまえ"
    ]
  },
  T5: {
    en: [
      near(AI_EN, DISMISS_EN, 12),
      "(?:trust|believe|listen to|follow|obey) (?:the )?" +
        AI_EN +
        "(?: \\w+){0,3}? (?:over|instead of|rather than|more than) (?:your |my |the |a )?(?:own )?" +
        EXPERT_EN,
      "(?:let|have|ask) (?:the )?" +
        AI_EN +
        gap(2) +
        "(?:pick|decide|choose|set|determine|prescribe)" +
        gap(4) +
        STAKES_EN,
      AI_EN + gap(4) + "(?:knows better|is (?:better|smarter|more accurate)) than" + gap(2) + EXPERT_EN,
      AI_EN + gap(8) + "(?:said|says|told me)" + gap(10) + "so (?:i'm|i am|we're|i|we) (?:not|won't|didn't|don't|never)"
    ],
    ja: [
      AI_JA + ".{0,30}?(?:疑う必要|確認する必要|確認せず|何も確認しな|鵜呑み|言いなり)",
      AI_JA +
        ".{0,30}?(?:医者|医師|主治医|病院|救急|弁護士|専門家|薬|投資|全財産|貯金|治療|診断).{0,30}?(?:行かな|いらない|不要|必要ない|相談せず|やめ|決めてもら|より正確|より正しい)",
      "(?:医者|医師|弁護士|専門家|病院).{0,10}?(?:より|なんて|は).{0,10}?" + AI_JA + ".{0,10}?(?:正確|正しい|信じ|頼)"
    ]
  },
  T6: {
    en: [
      "(?:post|share|publish|leak|spread|put|dump|drop|plaster|broadcast|reveal|expose|circulate|forward)\\w*" +
        gap(3) +
        YOU_POSS +
        gap(2) +
        PII_EN,
      "(?:post|share|publish|leak|spread|dump|reveal|expose|circulate|forward)\\w*" + gap(3) + PII_EN + " of",
      "here(?:'s| is| are) (?:the |his |her |their )(?:\\w+ ){0,3}?(?:full name|real name|home address)",
      "(?:track|figur|dig|dug)\\w*(?: \\w+){0,2}? (?:out )?where (?:he|she|they|this \\w+|that \\w+|the \\w+) (?:lives?|works?|sleeps?)",
      YOU_POSS +
        " (?:driver'?s licen[cs]e|passport|bank account|credit card|social security|ssn)(?: number)? (?:is|was)"
    ],
    ja: [
      "(?:住所|自宅|実家|電話番号|携帯|勤務先|職場|本名|学校名|顔写真|個人情報|健康診断の結果|病歴|診断結果)(?:を|と|も|や|、).{0,25}?(?:晒|さらし|さらす|さらそ|ばらま|拡散|特定)",
      // Not one's own: 新しい住所をグループに貼っとく.
      "(?<!新しい|自分の|私の|うちの|僕の|俺の)(?:住所|自宅|実家|電話番号|携帯|勤務先|職場|本名|学校名|顔写真|個人情報|健康診断の結果|病歴|診断結果)(?:を|と|も|や|、).{0,25}?(?:ねっと|掲示板|sns|ついったー|ぶろぐ|ぐるーぷ|全員|みんな).{0,6}?(?:書き込|載せ|のせ|投稿|送っ|広め|貼)",
      "(?:自宅|住所|家)を特定"
    ]
  },
  T7: {
    en: [
      EXFIL_EN + gap(6) + ORG_DATA_EN,
      ORG_DATA_EN + gap(6) + OUTSIDER_EN,
      "(?:don't|do not) tell anyone (?:i|we) (?:gave|sent|showed|leaked)"
    ],
    ja: [
      "(?:顧客でーた|顧客情報|顧客りすと|顧客名簿|社員の給与|給与一覧|人事情報|社内しすてむ|ぱすわーど一覧|設計図|仕様書|見積書|議事録|合併計画|買収計画|未発表の|未公開の|決算情報|そーすこーど)" +
        ".{0,20}?(?:持ち出|流出|漏洩|漏ら|売っ|売る|売り(?!場)|横流し|ばらま|りーく|教えてしま|(?:sns|ねっと|掲示板|外部|ふぉーらむ|匿名).{0,6}?(?:載せ|のせ|投稿|あっぷ|公開))",
      "(?:記者|ますこみ|週刊誌|競合|らいばる会社|転職先)(?:に|へ).{0,10}?(?:売っ|売る|渡し|流し|教え|送っ|持ち込)"
    ]
  },
  T8: {
    en: [
      "(?:break|hack|sneak)\\w* into " +
        YOU_POSS +
        "(?: \\w+)? (?:account|email|phone|wifi|wi-fi|network|house|home|car|computer)",
      "(?:get|log|access)\\w* into " + YOU_POSS + "(?: \\w+)? (?:account|email|phone|wifi|wi-fi|network|computer)",
      HOWTO_EN +
        gap(10) +
        "without (?:getting caught|being caught|(?:anyone|the police|the cops|the auditors?|my boss) (?:noticing|knowing|finding out))",
      "so (?:the )?(?:police|cops|auditors?|irs|tax office|bank) (?:don't|won't|can't) (?:notice|find out|know|trace)",
      HOWTO_EN + gap(3) + CRIME_EN,
      "(?:buy|sell|get)\\w*" +
        gap(3) +
        "(?:stolen|cloned|fake|forged) (?:credit cards?|card numbers?|ids?|passports?|doctor'?s notes?|documents?|prescriptions?)",
      "(?:write|send|make|create|help me)\\w*" +
        gap(4) +
        "pretend\\w* to be (?:the |a |your )?(?:bank|police|irs|tax office|microsoft|apple|amazon|government)",
      "(?:write|make|create|send|help me)\\w*" + gap(2) + "phishing",
      "cook\\w* the books"
    ],
    ja: [
      "他人の(?:あかうんと|すまほ|携帯|ぱすわーど|名義).{0,20}?(?:使|ろぐいん|解除|盗|乗っ取)",
      "(?:元かの|元彼|元かれ|同僚|上司|隣人|隣の家)の(?:あかうんと|すまほ|携帯|line|めーる).{0,15}?(?:見る方法|ろぐいん|解除|盗み見|のぞ)",
      "不正ろぐいん",
      "乗っ取(?:る方法|り方)",
      "万引き",
      "闇ばいと(?:で|に応募|を探|募集)",
      "(?:盗|万引|脱税|ごまか|横領|忍び込|侵入|密輸|偽造|不正|詐欺|盗撮).{0,20}?(?:ばれない|見つからない|捕まらない)",
      "(?:税務署|国税|警察)に(?:ばれない|見つからない)",
      "(?:鍵を開けて|鍵を壊して|窓を割って).{0,4}?(?:忍び込|侵入)",
      "忍び込(?:む方法|むやり方|み方)",
      "盗んだ(?:すまほ|携帯|かーど).{0,15}?(?:解除|売|使|方法)",
      "詐欺の?(?:やり方|方法)",
      "(?:売上|所得|収入)を(?:ごまか|隠|少なく申告)",
      "(?:盗む|盗み|万引き|脱税|横領|忍び込|不正ろぐいん|乗っ取|偽造|密輸|はっきんぐ|ぴっきんぐ).{0,10}?(?:方法|やり方|手順|こつ|仕方)"
    ]
  },
  T9: {
    en: [
      "(?:painless|quick|quickest|easiest|surest|best|fastest|least painful) (?:\\w+ )?(?:ways?|methods?) (?:to|of) (?:die|dying|kill(?:ing)? (?:myself|yourself)|end (?:it|my life)|commit suicide|suicide)",
      "how (?:many|much)(?: \\w+){0,2}? (?:pills|tablets|tylenol|paracetamol|acetaminophen|sleeping pills|ibuprofen)" +
        gap(6) +
        "(?:die|overdose|od|be fatal|be lethal)",
      "(?:lethal|fatal) dose of",
      "(?:i'm going to|i am going to|i want to|i will|i'll|gonna|planning to|plan to) (?:jump off (?:a |the )?(?:bridge|building|roof|cliff|balcony)|hang myself|kill myself|end (?:it all|my life)|overdose|slit my wrists|cut myself)",
      "(?:cut|slit|slash)\\w* my wrists?",
      "(?:to|can|could|will|i'll|we'll|gonna) (?:blow|blew) up (?:a |the |his |her |their |my |this |that |an )?(?:\\w+ )?(?:car|building|house|school|bus|plane|bridge|train|station|office|mosque|church|synagogue|people|crowd)",
      "(?:make|making|mix|mixing|build)\\w*" + gap(2) + "thermite"
    ],
    ja: [
      "楽に死ね",
      "死ね(?:る|ます)(?:方法|の|やり方)",
      "死に方を教え",
      "自殺(?:の|する)?(?:方法|やり方)",
      "首を吊",
      "首吊り",
      "りすとかっと",
      "(?:爆発させ|爆破す|爆破させ)(?:る)?(?:方法|やり方)",
      "(?:火炎瓶|かえんびん|爆弾|ばくだん)を.{0,4}?(?:作っ|作り|投げ)"
    ]
  },
  T10: {
    en: [
      "(?:doesn't|does not|don't) matter (?:that|if) (?:it's|it is|it isn't|they're) (?:false|not true|a lie|fake|untrue)",
      "(?:start|spread|begin|launch|invent)\\w* (?:an? |the |some )?rumou?rs?",
      "(?:write|post|make|create|leave|buy|generate)\\w*" +
        gap(3) +
        "fake (?:[\\w-]+ )?(?:reviews?|accounts?|profiles?|news|stories|story|testimonials?)",
      "(?:create|make|use|set up|run)\\w*(?: \\w+)? (?:bot|sock ?puppet|burner|fake) accounts",
      "(?:make|made|making) up (?:an? |the )?(?:story|rumou?r|claim|report|lie)",
      "(?:to|need to|want to|gonna) (?:scare|panic|frighten|mislead|fool|trick) (?:people|everyone|the public|voters)",
      "(?:keep )?push\\w* the (?:story|narrative|lie|rumou?r)"
    ],
    ja: [
      "(?:偽|でま|でっち上げ|作り話)の?(?:口こみ|噂|情報|れびゅー|投稿|記事|書き込み)",
      "噂を.{0,8}?(?:広め|流|拡散|ばらま|回)",
      "でまを.{0,6}?(?:回|広め|流|拡散)",
      "(?:嘘|うそ|でま)だ?けど.{0,6}?(?:拡散|広め|流|回)",
      "さくら(?:の)?(?:あかうんと|れびゅー|口こみ)",
      "(?:でっち上げて|捏造して).{0,4}?(?:広め|拡散|流)",
      "書き込みを大量に"
    ]
  },
  T11: {
    en: [
      near(
        CURE_CLAIM_EN,
        "(?:stop|quit|ditch|refuse|don't|do not|no need for|throw away|give up|never)\\w*" + gap(3) + TREATMENT_EN,
        10
      ),
      "(?:can|should|may) (?:safely )?(?:stop|quit|ditch) (?:\\w+ )?" + TREATMENT_EN,
      REMEDY_EN +
        gap(4) +
        "(?:cures?|heals?|treats?|reverses?|clears?|eliminates?|kills?|will cure|can cure|cured)" +
        gap(3) +
        DISEASE_EN,
      DISEASE_EN + " at home (?:by|with)",
      "(?:drink|drinking)\\w* (?:your )?(?:own )?urine"
    ],
    ja: [
      "(?:治る|完治する|治せる|消える|効く)(?:から|ので|し).{0,20}?(?:薬|抗がん剤|放射線治療|治療|わくちん|予防接種|手術|吸入|病院|抗生物質).{0,10}?(?:いらない|不要|必要ない|受けなくて|打たなくて|しなくて|行かなくて)",
      "(?:薬|わくちん|抗がん剤|すてろいど|いんすりん|予防接種|抗生物質)(?:は|って)(?:毒|体に悪い|危険|意味がない|効かない).{0,20}?(?:やめ|不要|いらない|受けなくて|打つな|飲むな)",
      "(?:予防接種|わくちん)(?:は|を)?(?:受けなくて|打たなくて|しなくて)(?:いい|よい|大丈夫)",
      "(?:尿|おしっこ)を飲"
    ]
  },
  T12: {
    en: [
      near(TOPIC_EN, HOAX_EN, 5),
      "(?:earth|world|universe) is (?:only )?(?:\\d+|six|five|ten) thousand years old",
      "(?:caused|created|made|engineered|started|spread) by (?:an? |the )?(?:secret|hidden|government|american|chinese|cia|jewish|pharmaceutical)\\w*(?: \\w+)? (?:weapon|lab|plot|conspiracy|program|device|elites?)",
      "(?:vaccines?|shots?|jabs?) (?:contain|have|include|inject)\\w* (?:\\w+ )?(?:microchips?|chips|trackers?|tracking devices?|nanobots?|magnets?)",
      "built by aliens",
      "(?:historians|scientists|doctors|the government|governments|nasa|the media|big pharma|the elites?) (?:are|is|have been) (?:hiding|covering up|suppressing) (?:the truth|it|this|the cure)"
    ],
    ja: [
      "月に行っていない",
      "月面着陸.{0,10}?(?:嘘|捏造|でっち上げ|やらせ|すたじお)",
      "(?:地球温暖化|温暖化|ほろこーすと|南京事件|南京大虐殺|進化論|わくちん|地震|震災|月面着陸|911|9\\.11|同時多発てろ).{0,24}?(?:嘘|でっち上げ|作り話|捏造|自作自演|陰謀|起きていなかった|起きていない|存在しなかった|兵器によって|仕組まれ|やらせ)",
      "(?:わくちん|注射).{0,15}?(?:5g|電波|まいくろちっぷ|磁石)"
    ]
  }
}
