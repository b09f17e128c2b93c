/**
 * The guard's patterns for harm said in a register the keyword and phrase lists (guard-lexicon.ts,
 * guard-phrases.ts) were not written for: slang and euphemism (a plug, molly, unalive, 受け子,
 * シャブ), indirect threats (accidents happen to people who…, see what happens to your…,
 * 首を洗って待っとけ, どうなっても知らない), intent frames (to make it look like an accident, so
 * the fall is sure to kill, どれくらい飲めば楽になれる), hoaxes flagged by their own speaker (even
 * though we have no proof, 証拠ないけど), and claims of a cure or a conspiracy in everyday words.
 * Same conventions as guard-phrases.ts (English: regular expressions over lower-cased NFKC text,
 * whole words; Japanese: katakana folded to hiragana).
 * Tuned on test/emulator/models/guard-dev-2.jsonl only; measured on the held-out sets (docs/emulator.md).
 */
import type { CategoryCode } from "../../service/moderation.ts"
import type { CategoryRules } from "./guard-lexicon.ts"

/** Up to `n` words between two parts of an English pattern (non-greedy). */
const gap = (n: number) => `(?:\\W+\\w+){0,${n}}?\\W+`
const any = (...xs: ReadonlyArray<string>) => `(?:${xs.join("|")})`

const ANIMAL_EN = "(?:pupp(?:y|ies)|kittens?|dogs?|cats?|hamsters?|rabbits?|bunn(?:y|ies)|birds?|animals?|pets?)"
const CRUEL_PLACE_EN = "(?:boiling water|(?:a |the )?(?:fire|microwave|oven|blender|freezer|wood ?chipper))"
const STREET_DRUG_EN =
  "(?:molly|mdma|weed|xans?|xanax|percs?|percocets?|oxy\\w*|lean|shrooms|ket|ketamine|meth|crack|heroin|fentanyl|adderall|adhd pills)"
const CONTRABAND_EN =
  "(?:knife|knives|guns?|pistols?|weapons?|blades?|drugs|pills|bombs?|explosives?|fake ids?|(?:a |the |some )?" +
  STREET_DRUG_EN +
  ")"
const CHECKPOINT_EN =
  "(?:metal detectors?|security(?: checks?| scanners?| lines?)?|customs|the airport|tsa|bouncers?(?:'s)?(?: \\w+)?|checkpoints?|the border|guards?|x-ray\\w*)"

export const GuardColloquial: Readonly<Record<CategoryCode, CategoryRules>> = {
  T1: {
    en: [
      "(?:write|describe|generate|give me|tell me)\\w*" +
        gap(6) +
        "(?:raunch\\w*|smutty|x-rated) (?:\\w+ )?(?:scenes?|story|stories|fanfic|roleplay|hookups?)",
      "(?:leak|share|post|drop|send|upload|spread)\\w*" + gap(4) + "sex tapes?",
      "sex tapes?" + gap(6) + "(?:links?|leak\\w*)",
      "roleplay\\w*" + gap(6) + "(?:dirty|naughty|sexual|sexy|horny|kinky)",
      "(?:film|record|photograph|tap)\\w* (?:her|him|them|(?:his|her|their|my) \\w+) (?:while (?:she|he|they) (?:was|were|is|are) )?(?:undress\\w*|naked|nude|showering|in the shower|changing|peeing|having sex)",
      "upskirts?"
    ],
    ja: [
      "すかーとの中を?.{0,4}?(?:撮|盗撮|のぞ|覗)",
      "(?:えっちな|えろい|裸の|はだかの|べっどの)(?:動画|写真|画像).{0,12}?(?:晒|さら|ばらま|流|拡散|上げ|あげ)",
      "夜の(?:動画|写真|画像).{0,12}?(?:晒|さら|ばらま)",
      "(?:中学生|小学生|高校生|未成年|幼女|女子高生|女子中学生|jk|jc)の?.{0,12}?(?:えっち|えろ|裸|せっくす)",
      "えっちな(?:話|小説|場面|しーん|画像|動画)を.{0,4}?(?:書|描|作|見せ|送)"
    ]
  },
  T2: {
    en: [
      ANIMAL_EN + " (?:being |was |were |got )?(?:thrown|tossed|dropped|put|shoved) (?:into|in) " + CRUEL_PLACE_EN,
      "(?:throw|toss|drop|put|shove)\\w* (?:a |the |my |his |her |their )?(?:live )?" +
        ANIMAL_EN +
        " (?:into|in) " +
        CRUEL_PLACE_EN,
      "microwav\\w* (?:a |the |my |his |her )?(?:hamster|cat|kitten|puppy|dog|pet|bird|rabbit)(?! (?:food|treats?|bowl|biscuits?|toys?))",
      "(?:bones?|skulls?|ribs?) (?:snapping|crunching|shattering)",
      "(?:crush|snap|break|smash|shatter)\\w* (?:his|her|their|the victim's|the \\w+'s) (?:fingers|bones|skull|ribs|knees|kneecaps|neck|teeth|spine)",
      "(?:body|bodies|corpses?|(?:a |the )?person) (?:goes |go |going |went |was put |were put )?(?:through|into) (?:a |the )?(?:wood ?chipper|meat grinder|grinder|acid bath)",
      "until there was nothing left of (?:his|her|their|the \\w+'s) (?:face|head|body)"
    ],
    ja: [
      "内臓を(?:引きずり出|えぐ|ひきずり出)",
      "(?:人|被害者|男|女|あいつ|犯人|捕虜)の(?:腹|首|喉|のど)を(?:裂|切り裂|かっさば|掻っ切)",
      "(?:顔|頭|体)が原形をとどめ",
      "(?:猫|犬|はむすたー|子猫|子犬|うさぎ|ぺっと|動物|小鳥)を.{0,8}?(?:電子れんじ|熱湯|火に|焼い|煮|沈め|蹴り殺|吊る)"
    ]
  },
  T3: {
    en: [
      "(?:old people|the elderly|boomers|gypsies|roma|immigrants|muslims|jews|women|gays|blacks|asians|mexicans) (?:are|were) (?:all |just )?(?:born|natural|useless|worthless) (?:\\w+ )?(?:thieves|criminals|liars|leeches|parasites|cheats|killers)",
      "(?:why|how come) (?:are|do) (?:all )?(?:muslims|jews|blacks|black people|mexicans|immigrants|women|gays|asians|arabs|refugees|gypsies|chinese people|indians) (?:so |always |all )?(?:violent|stupid|lazy|dirty|greedy|dishonest|dumb|criminal|smelly|primitive)",
      "(?:women|gays|blacks|immigrants|muslims|jews|trans people|disabled people) (?:have|has) no (?:business|place|right) (?:being|in|to)",
      "(?:muslims|jews|blacks|black people|mexicans|immigrants|women|gays|asians|arabs|refugees|gypsies)" +
        gap(12) +
        "in their (?:blood|genes|dna|nature|religion)(?!al)",
      "(?:old people|the elderly|boomers|disabled people|the disabled|immigrants|refugees|gays)" +
        gap(6) +
        "(?:should|need to|ought to) (?:just )?(?:hurry up and )?die",
      "(?:immigrants|refugees|muslims|jews|blacks|women|gays|mexicans|foreigners|asians) (?:who|that) (?:\\w+ ){1,6}?(?:are|is) (?:all )?(?:animals|vermin|rats|parasites|subhuman|criminals|scum)"
    ],
    ja: [
      "(?:障害持ち|障害者|障がい者|老人|年寄り|外国人|外人|黒人|在日|韓国人|中国人|げい|ほも|れずび?あん|移民|難民)(?:は|って|なんて|なんか|とか|ども|は全員|みたいなの)" +
        ".{0,24}?(?:民度が低い|外に出て(?:くるな|こないで)|入れるべきじゃない|入れるな|させるな|近づけるな|気持ち悪|きもい|生きてる意味)"
    ]
  },
  T4: {
    en: [
      "accidents happen to (?:people|those|snitches|anyone|folks|guys|girls) (?:who|that) (?:talk|snitch|rat|testify|tell|squeal|go to the (?:police|cops)|cross|mess with|run their mouths?)",
      "(?:keep|go ahead and|try (?:it|that)|do it again)" +
        gap(6) +
        "(?:and|then) (?:see|watch) what happens to (?:you|your \\w+(?: \\w+)?|him|her)",
      "if (?:i|we) (?:ever )?(?:see|catch|find|meet) (?:you|your \\w+)" +
        gap(10) +
        "(?:you(?:'re| are|'ll| will)(?: be)? (?:going to|going in|ending up in|end up in) (?:the |an? )?(?:hospital|morgue|ground|grave|er|icu|body bag|ambulance)|you(?:'re| are) dead)",
      "tell (?:your \\w+|him|her|them)" +
        gap(5) +
        "(?:i'm|i am|we're|we are) waiting for (?:her|him|them|you)" +
        gap(6) +
        "alone",
      "pray (?:i|we) (?:don't|do not|never) (?:catch|find|see|get) you",
      "do (?:us|everyone|the world|yourself) (?:all )?a favou?r and (?:disappear|die|leave this world|kill yourself|end it|vanish|drop dead|go away forever)",
      "(?:everyone|everybody|the whole (?:school|class|team)|we all|all of us) (?:hates|hate|despises|despise) you",
      "make sure (?:you|he|she|they) (?:never|can't|won't|cannot) (?:walk|see|talk|speak|breathe|use (?:your|his|her|their) \\w+) again"
    ],
    ja: [
      "(?:家族|子ども|子供|嫁|親|住所|家|会社|職場|学校)(?:の顔)?(?:も|まで).{0,12}?知ってる(?:からな|ぞ|よな|んだぞ)",
      "首を洗って待",
      "(?:本気で|絶対|次は)(?:潰す|殺す|沈める)から",
      "(?:あんた|お前|おまえ|てめえ|てめー)(?:なんか|なんて|みたいなの).{0,24}?(?:消えて|死んで|いなくなって|いなくなれ)",
      "(?:言ってると|逆らうと|しゃべったら|喋ったら|ちくったら|通報したら|調子に乗ってると|なめてると).{0,6}?どうなっても知らない"
    ]
  },
  T5: {
    en: [
      "(?:ai|chatbot|chat ?gpt|gpt|the bot)\\w*" +
        gap(10) +
        "(?:said|says|told me|told her|told him)" +
        gap(10) +
        "so (?:i|we|she|he) (?:cancel\\w*|skipp?\\w*|stopp?\\w*|quit|ditch\\w*|ignor\\w*|refus\\w*)" +
        gap(3) +
        "(?:biops\\w*|appointments?|surgery|treatment|chemo\\w*|medications?|meds|therapy|vaccin\\w*|check-?ups?|scans?|tests?|insulin|pills|lawyer|hearing|doctor\\w*)",
      "(?:ai|chatbot|chat ?gpt|gpt|the bot)" +
        gap(10) +
        "without (?:looking|reading|checking|reviewing|double-checking)",
      "(?:follow|use|trust|take)\\w* (?:the )?(?:ai|chatbot|chat ?gpt|bot)'?s? (?:\\w+ ){0,4}?(?:instead of|rather than) (?:asking|seeing|consulting|calling|checking with|going to) (?:a |the |my |your )?(?:doctor|pharmacist|lawyer|nurse|vet|physician|specialist|accountant)",
      "(?:lets|letting|has|asks) (?:the )?(?:ai|chatbot|chat ?gpt|gpt|bot) (?:decide|pick|choose|set|determine)" +
        gap(4) +
        "(?:medications?|meds|treatment|doses?|dosage|insulin|savings|investments?)"
    ],
    ja: ["ai.{0,30}?(?:予防接種|わくちん|手術|検査|健診|抗がん剤|透析).{0,20}?(?:やめ|受けな|打たな|いらない|不要)"]
  },
  T6: {
    en: [
      "(?:found|find|finding) out where (?:he|she|they|this \\w+|that \\w+|the \\w+|(?:his|her|their|the \\w+'s) \\w+) (?:lives?|works?|sleeps?|goes? to school|go to school|stays?)",
      "(?:list|names|records|database|spreadsheet) of (?:\\w+ )?(?:patients|people|employees|students|staff|members|customers) with (?:hiv|aids|an? std|stds|stis|mental illness\\w*|psychiatric \\w+|abortions?|herpes)"
    ],
    ja: [
      "(?:この人|あの人|その人|あいつ|こいつ|そいつ|彼|彼女|犯人|あの子|この子|[一-龯]{1,4}さん)の(?:家|自宅|住所|実家|本名|電話番号|学校|職場|勤務先|裏あか)(?:、|と|も|を|は)?.{0,30}?(?:特定|晒|さら(?:す|し|そ)|拡散|ばらま|貼っと)"
    ]
  },
  T7: {
    en: [
      "(?:want to see|wanna see|check out|take a look at|look at) (?:the |our |their )?(?:unreleased|confidential|internal|leaked) (?:\\w+ )?(?:designs?|specs?|plans?|products?|earnings|results|roadmaps?|prototypes?|source code|figures)",
      "(?:internal|private|confidential) (?:\\w+ )?(?:channels?|chats?|slack|wiki|threads?|discussions?|emails?)" +
        gap(8) +
        "to (?:the |an? )?(?:journalists?|reporters?|press|media|newspapers?|competitors?|rivals?)",
      "(?:crm|customer base|client base|client files|customer files|contacts database)" +
        gap(8) +
        "to (?:the |my |a )?new (?:job|employer|company|firm)"
    ],
    ja: [
      "(?:発表前|公開前|解禁前|未発表|部外秘).{0,20}?(?:sns|ついったー|いんすた|ねっと|掲示板|ぶろぐ|x)(?:に|で).{0,4}?(?:書|載せ|のせ|投稿|あっぷ|流|呟|つぶや)",
      "(?:人事|評価|給与|顧客|社内|機密|内部)(?:の)?.{0,10}?(?:でーた|情報|資料|りすと|ふぁいる)(?:、|を)?.{0,12}?(?:友達|友人|家族|知り合い|外部の人)(?:に|へ).{0,6}?(?:見せ|渡し|送っ|流し|教え)"
    ]
  },
  T8: {
    en: [
      "(?:a |any |my |the |your )plug (?:who|that|for|to) (?:can |could |will )?(?:get|sell|hook)",
      "(?:buy|score|cop)\\w* (?:some )?" + STREET_DRUG_EN + "(?! (?:killer|control|whacker|eater|barrier))",
      "get (?:me|us) (?:some )?" + STREET_DRUG_EN,
      "(?:sell|selling|sold|sells) (?:some |his |her |my |their )?(?:" +
        STREET_DRUG_EN +
        "|adhd pills|adderall|prescription pills)(?! (?:killer|control|whacker|eater|barrier))",
      any("guns?", "firearms?", "rifles?", "pistols?", "ar-?15s?") +
        gap(6) +
        "(?:without|with no|no|skip\\w*|bypass\\w*|get around|dodg\\w*) (?:a |the )?background checks?",
      "catfish(?:ing|ed)? (?:an? |some |the |him|her|them|people|lonely|old|rich)",
      "get (?:him|her|them|people|an? \\w+(?: \\w+)?|the \\w+) to (?:wire|send|transfer|give) (?:me|us) (?:money|cash|the money|bitcoin|crypto|gift cards|a deposit)",
      "make (?:it|this|the fire|his death|her death) look like an? (?:accident|suicide|break-in|robbery)",
      "(?:torch|burn|crash|wreck|stage|set fire to)\\w*" + gap(4) + "for (?:the )?insurance",
      "(?:sneak|smuggl|slip)\\w* (?:a |an |my |the |some )?" +
        CONTRABAND_EN +
        gap(2) +
        "(?:past|through|by) (?:the )?" +
        CHECKPOINT_EN,
      "(?:get|take|bring|carry)\\w* (?:a |an |my |the |some )?" +
        CONTRABAND_EN +
        " (?:past|through) (?:the )?" +
        CHECKPOINT_EN,
      "how (?:not to|to not|to avoid) (?:get(?:ting)?|be(?:ing)?) (?:caught|arrested|busted)(?! (?:in the rain|in traffic|off guard|out))",
      "(?:write|make|create|post)\\w*" +
        gap(2) +
        "fake (?:\\w+ )?(?:listings?|invoices?|charit\\w*|fundraisers?|gofundme|receipts?|rentals?)"
    ],
    ja: [
      "(?:(?<!しゃぶ)しゃぶ(?!しゃぶ)|(?<![ぁ-ん])やく|ぱけ|手押し|冷たいの)(?:って|は|を)?.{0,6}?(?:どこで|どこに).{0,10}?(?:手に入|買え|売って|入手)",
      "(?:受け子|出し子|かけ子)(?:の)?(?:ばいと|をやっ|やってみ|に応募|募集)",
      "(?:友達|友人|他人|彼女|彼氏|元かの|元彼|同僚)の.{0,10}?(?:ぱすわーど|あかうんと).{0,10}?(?:こっそり|勝手に|無断で).{0,10}?(?:変え|ろぐいん|入|見)",
      "(?:偽の?|偽物の?|こぴー)(?:ぶらんど品|商品|ちけっと|ぶらんど).{0,20}?(?:本物として|本物と偽って)",
      "(?:酔っ払い|飲酒|無免許)運転.{0,10}?(?:捕まらない|ばれない|見つからない)"
    ]
  },
  T9: {
    en: [
      "(?:take|taking|swallow\\w*|down\\w*) (?:all|every one of|the whole (?:bottle|pack|box) of) (?:my |the |these |those |her |his )?(?:pills|meds|tablets|medication|sleeping pills|painkillers)" +
        gap(3) +
        "(?:tonight|at once|in one go|at the same time|and (?:just )?(?:sleep\\w*|die|end it|never wake))",
      "unalive\\w*",
      "(?:fall|jump|drop)" + gap(3) + "(?:guaranteed|certain|sure|enough) to kill",
      "(?:blackout|choking|pass-?out|tide ?pod|benadryl|skull ?breaker) challenge",
      "(?:hold|tie|tighten|pull|wrap)\\w* (?:the |a |my |your )?(?:belt|rope|cord|plastic bag|zip tie) (?:tight\\w* )?around (?:your|my|his|her|their) (?:neck|head)",
      "(?:make|making|get|buy)\\w* (?:some )?(?:chloroform|cyanide|arsenic|ghb|rohypnol|roofies|date rape drugs?)",
      "to (?:knock|drug|poison|sedate) (?:someone|somebody|him|her|them|people|my \\w+|a \\w+) (?:out|unconscious)"
    ],
    ja: [
      "(?:何錠|何粒|どれくらい|どのくらい|どんだけ|いくつ)(?:飲|のめ|のん)(?:めば|んだら|だら).{0,10}?(?:楽に|死|しね|永遠|目が覚めな)",
      "(?:排気がす|がす|薬|睡眠薬|首を|飛び降り).{0,20}?(?:どのくらい|どれくらい|何分|何時間|何秒)で死(?:ぬ|ね)",
      "排気がす.{0,10}?(?:部屋|車内|中)に(?:入れ|引き込|充満)",
      "(?:爆発|爆破)(?:を起こし|させ|し)たい",
      "煽り運転(?:したい|する(?:やり方|方法|動画|こつ)|のやり方|の方法)"
    ]
  },
  T10: {
    en: [
      "(?:tell|post|say|spread|claim|share|write|text|announce)\\w*" +
        gap(14) +
        "(?:even though|although|though) (?:(?:it's not|it isn't|it is not|that isn't|that's not) true|(?:it's|it is|that's) (?:false|a lie|made up)|(?:we have|there's|we've got|i have|there is) no (?:proof|evidence))",
      "(?:doesn't|does not|don't|do not) (?:need|have) to be true",
      "(?:post|spread|tweet|announce|text)\\w*" + gap(12) + "(?:it's|its|it is) (?:just |only )?(?:a )?(?:prank|joke)",
      "(?:photoshop|doctor|forge|deepfake)\\w*" +
        gap(2) +
        "(?:screenshots?|photos?|images?|pictures?|videos?|quotes?|recordings?|documents?) of" +
        gap(3) +
        "(?:saying|doing|admitting|confessing|with)",
      "(?:viral|fake) posts? claiming"
    ],
    ja: [
      "(?:証拠|根拠|裏付け)(?:は|も)?(?:ない|無い|なし)(?:けど|のに|が).{0,30}?(?:書|流|広め|拡散|回|投稿|言いふら)",
      "(?:嘘|うそ|偽|にせ|でっち上げ)の(?:画像|写真|動画|記事|にゅーす|すくしょ)",
      "(?:作り話|嘘|うそ|でま|でっち上げ)を.{0,15}?(?:書きまく|書こう|書いとこう|書いておこう|流そう|広めよう|拡散しよう|投稿しよう|載せよう|書き込もう|回そう)"
    ]
  },
  T11: {
    en: [
      "(?:pulls?|draws?|sucks?|flush\\w*) out (?:the |all the )?toxins",
      "(?:caused|cured) by (?:evil )?(?:spirits|demons|possession|sin|curses?)",
      "the only (?:real |true )?(?:cure|treatment|remedy) (?:for \\w+ )?is (?:an? )?(?:\\w+ ){0,3}?(?:ritual|prayer|fasting|juice|herbs?|oils?|cleanse)",
      "(?:sunscreen|vaccines?|fluoride|masks?|inhalers?) causes? (?:\\w+ )?(?:cancer|autism|infertility|diabetes|death|dementia)",
      "(?:get rid of|beat|reverse|cure|heal) (?:your |my |his |her )?(?:hiv|aids|cancer|tumou?rs?|epilepsy|autism|schizophrenia) (?:by|with|through|using) (?:\\w+ ){0,4}?(?:diet|fasting|juice|prayer|herbs?|oils?|vitamins?|supplements?|vegan|raw|cleanse)"
    ],
    ja: [
      "(?:薬|治療|病院|医者)(?:なんか|なんて|は|を)?.{0,6}?(?:飲まず|使わず|行かず|頼らず|受けず).{0,10}?(?:気合|根性|自力|食事|祈り|水|塩).{0,6}?(?:治|直)",
      "うつ病は甘え(?!じゃな|ではな|ではあり)",
      "妊娠中(?:でも|に|は)?.{0,10}?(?:お酒|酒|たばこ|飲酒|喫煙).{0,10}?(?:少しなら|ちょっとなら|たまになら).{0,10}?(?:いい|大丈夫|平気|問題ない)"
    ]
  },
  T12: {
    en: [
      "(?:birds|australia|finland|covid|the virus|viruses|germs|gravity) (?:(?:aren't|isn't|are not|is not) real|(?:doesn't|don't|never) exist(?:ed)?(?! (?:anymore|any more|on|in|outside|after|yet)))",
      "chemtrails?" + gap(6) + "(?:making|poison\\w*|control\\w*|sterili\\w*|sick|in on it)",
      "crisis actors?|(?:are|were) all (?:paid )?actors|is a paid actor",
      "replaced (?:with|by) (?:(?:government|cia) (?:drones|robots)|clones|lizards|lizard people|body doubles)"
    ],
    ja: [
      "(?:人類|あぽろ|nasa|あめりか)(?:は|が)?.{0,4}?月に行って(?:い)?ない",
      "(?:地震|台風|豪雨|震災|災害|ういるす|病気|火事).{0,12}?(?:政府|国|cia|米軍|あめりか|中国|製薬会社)が.{0,6}?(?:起こして|起こした|仕組ん|人工的に)"
    ]
  }
}
