/**
 * The emulated guard's lexicon: a text is flagged with a category when it contains one of the
 * category's terms (Japanese: substring; English: whole word, case-insensitive). Documented in the
 * README; deliberately small and obvious so tests and fault drills can aim at it.
 */
import type { CategoryCode } from "../../service/moderation.ts"

export const GuardLexicon: Readonly<Record<CategoryCode, { readonly ja: ReadonlyArray<string>; readonly en: ReadonlyArray<string> }>> = {
  T1: { ja: ["性的描写", "わいせつ", "猥褻", "ポルノ"], en: ["explicit sex", "pornographic", "porn", "obscene"] },
  T2: { ja: ["惨殺", "血まみれ", "拷問", "虐殺"], en: ["gore", "bloodbath", "torture", "massacre", "dismember"] },
  T3: { ja: ["差別", "劣等民族", "蔑称"], en: ["inferior race", "racial slur", "subhuman"] },
  T4: { ja: ["死ね", "消えろ", "殺すぞ"], en: ["kill yourself", "i will hurt you", "worthless idiot"] },
  T5: { ja: ["AIが言うなら絶対", "AIの判断に全て従う"], en: ["the ai is always right", "obey the ai", "ai never makes mistakes"] },
  T6: { ja: ["マイナンバー", "住所と電話番号", "クレジットカード番号"], en: ["social security number", "credit card number", "home address of"] },
  T7: { ja: ["社外秘", "機密情報", "内部資料"], en: ["confidential internal", "trade secret", "internal memo leak"] },
  T8: { ja: ["麻薬の密売", "脱税の方法", "偽造"], en: ["sell drugs", "launder money", "counterfeit", "tax evasion scheme"] },
  T9: { ja: ["爆弾の作り方", "危険な薬品の混ぜ方"], en: ["build a bomb", "make explosives", "mix bleach and ammonia"] },
  T10: { ja: ["デマを拡散", "フェイクニュースを広め"], en: ["spread the rumor", "spread disinformation", "share this hoax"] },
  T11: { ja: ["がんは自然に治る", "ワクチンは毒"], en: ["cures cancer overnight", "vaccines are poison", "stop taking your medication"] },
  T12: { ja: ["捏造", "でっち上げ"], en: ["fabricated evidence", "the earth is flat", "moon landing was faked"] }
}
