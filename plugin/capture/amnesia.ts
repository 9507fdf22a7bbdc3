/**
 * Amnesia detection: does a user message say that the agent lost its place ("you forgot", "where were
 * we", "你忘了", "¿en qué estábamos?", "où en étions-nous", "wo waren wir stehengeblieben")? Pure: text in,
 * match out.
 *
 * Matching runs on a folded copy of the message: lower case, Latin diacritics removed (`é` -> `e`,
 * `ß` -> `ss`), compatibility forms folded (full-width `？` -> `?`), apostrophes (`’ ‘ ʼ ´ \``) read as `'`
 * and dashes as `-`. Latin phrases must stand as whole words. Phrases about forgetting to *do* something
 * are ordinary requests, not amnesia, and are refused: "you forgot to run the tests", "tu as oublié de
 * lancer", "olvidaste cerrar el archivo", "du hast vergessen, die Datei zu speichern".
 */

/** The language of a recognised phrase; `custom` for phrases passed by the caller. */
export type AmnesiaLanguage = "en" | "zh" | "es" | "fr" | "de" | "custom";

/** A recognised amnesia phrase. */
export interface AmnesiaMatch {
  /** The canonical form of the phrase (`"you forgot"`), or a custom phrase as it was given. */
  phrase: string;
  language: AmnesiaLanguage;
  /**
   * The message without the phrase, trimmed of surrounding white space and punctuation, for use as a
   * search query; `""` when the phrase was the whole message. Text inside a split phrase (`还记得…吗`,
   * `du hast … vergessen`) is kept.
   */
  rest: string;
}

interface Phrase {
  phrase: string;
  language: AmnesiaLanguage;
  /** Runs on the folded text; the optional `gap` group is message content and stays in `rest`. */
  re: RegExp;
  /** A check on the matched original text, for the few phrases where case matters (`Sie`). */
  original?: RegExp;
}

const NOT_TO = String.raw`(?!\s+to\s+\p{L})`;
const NOT_DE = String.raw`(?!\s+(?:de\s+\p{L}|d'\s*\p{L}))`;
const NOT_INFINITIVE = String.raw`(?!\s+(?:de\s+)?\p{L}+(?:ar|er|ir)(?:lo|la|los|las|le|les|me|te|se|nos)?(?!\p{L}))`;
const NOT_ZU = String.raw`(?![^.!?\n]*(?<!\p{L})zu\s+\p{L})`;
/** Up to six words between two halves of a German phrase, none of them `zu`. */
const DE_GAP = String.raw`(?<gap>(?:\s+(?!zu(?!\p{L}))[^\s.!?]+){0,6}?)`;
const ZH_PARTICLE = "(?:来着)?(?:吗|吧|呢|啊|呀)?";
const SIE = /Sie/u;

function latin(language: AmnesiaLanguage, phrase: string, source: string, original?: RegExp): Phrase {
  const re = new RegExp(String.raw`(?<![\p{L}\p{N}])(?:${source})(?![\p{L}\p{N}])`, "dgu");
  return original === undefined ? { phrase, language, re } : { phrase, language, re, original };
}

const en = (phrase: string, source: string): Phrase => latin("en", phrase, source);
const es = (phrase: string, source: string): Phrase => latin("es", phrase, source);
const fr = (phrase: string, source: string): Phrase => latin("fr", phrase, source);
const de = (phrase: string, source: string, original?: RegExp): Phrase =>
  latin("de", phrase, source, original);

function zh(phrase: string, source: string): Phrase {
  return { phrase, language: "zh", re: new RegExp(source, "dgu") };
}

const PHRASES: readonly Phrase[] = [
  en("you forgot", String.raw`(?:you|u)(?:\s+have|'ve)?\s+forgot(?:ten)?${NOT_TO}(?:\s+about)?`),
  en("did you forget", String.raw`did\s+(?:you|u)\s+forget${NOT_TO}(?:\s+about)?`),
  en("have you forgotten", String.raw`have\s+(?:you|u)\s+forgotten${NOT_TO}(?:\s+about)?`),
  en("what was I working on", String.raw`what\s+was\s+i\s+(?:working\s+on|doing)`),
  en("what were we working on", String.raw`what\s+were\s+(?:we|you)\s+(?:working\s+on|doing)`),
  en("where were we", String.raw`where\s+were\s+we(?!\s+(?:supposed|going|gonna|meant|told|asked|planning))`),
  en("where did we leave off", String.raw`where\s+did\s+(?:we|i|you)\s+(?:leave\s+off|stop)`),
  en(
    "pick up where we left off",
    String.raw`pick(?:ing)?\s+up\s+(?:from\s+)?where\s+(?:we|i|you)\s+left\s+off`,
  ),
  en(
    "continue where we left off",
    String.raw`(?:continue|carry\s+on|resume|go\s+on|start\s+again)\s+(?:from\s+)?where\s+(?:we|i|you)\s+left\s+off`,
  ),
  en("remember when", String.raw`remember\s+when`),
  en("do you remember", String.raw`do\s+(?:you|u)\s+(?:still\s+)?remember(?:\s+when)?`),
  en("we were working on", String.raw`(?:we\s+were|i\s+was)\s+working\s+on`),
  en(
    "you lost the context",
    String.raw`(?:you|u)(?:\s+have|'ve)?\s+lost\s+(?:the\s+|your\s+|all\s+)?(?:context|track|thread|place)(?:\s+of)?`,
  ),
  zh("你是不是忘了", `你是不是忘(?:记|掉)?了${ZH_PARTICLE}`),
  zh("你忘了", `你(?:难道|又|都|好像|是否)?忘(?:记|掉)?了${ZH_PARTICLE}`),
  zh(
    "我们刚才在做什么",
    `(?:我们|咱们)(?:刚才|刚刚|之前|上次|先前)在(?:做|干|弄|搞)(?:什么|啥|嘛)${ZH_PARTICLE}`,
  ),
  zh("我之前在做什么", `我(?:刚才|刚刚|之前|上次|先前)在(?:做|干|弄|搞)(?:什么|啥|嘛)${ZH_PARTICLE}`),
  zh(
    "我们做到哪了",
    "(?:我们|咱们|我)(?:刚才|刚刚|之前|上次)?(?:做|弄|搞|进行|讲|说|聊)到(?:哪儿|哪里|哪一步|哪)了?",
  ),
  zh("上次做到哪", "上次(?:我们|咱们|我)?(?:做|弄|搞|进行|讲|说)到(?:哪儿|哪里|哪一步|哪)了?"),
  zh("还记得…吗", "你?还记得(?<gap>[^。！？?!\\n]{0,40}?)(?:吗|么)"),
  zh("你还记得", "你还记得"),
  zh("我们之前在", "(?:我们|咱们)(?:之前|刚才|刚刚|上次)在"),
  zh("你丢了上下文", "你(?:把)?上下文(?:弄)?丢(?:失)?了|你丢(?:失)?了上下文"),
  zh("接着上次", "(?:接着|继续)上次的?"),
  es("te olvidaste", String.raw`te\s+olvidaste${NOT_INFINITIVE}(?:\s+de(?=\s))?`),
  es("olvidaste", String.raw`(?:lo\s+)?olvidaste${NOT_INFINITIVE}(?:\s+de(?=\s))?`),
  es("se te olvidó", String.raw`se\s+te\s+olvido${NOT_INFINITIVE}`),
  es("has olvidado", String.raw`(?:has|habeis)\s+olvidado${NOT_INFINITIVE}`),
  es("en qué estábamos", String.raw`en\s+que\s+estabamos`),
  es("en qué estaba trabajando", String.raw`en\s+que\s+(?:estaba|estabamos|estabas)\s+trabajando`),
  es(
    "dónde nos quedamos",
    String.raw`(?:en\s+)?donde\s+(?:nos\s+quedamos|lo\s+dejamos|nos\s+habiamos\s+quedado)`,
  ),
  es("recuerdas cuando", String.raw`(?:recuerdas|te\s+acuerdas(?:\s+de)?)(?:\s+cuando)?`),
  es("estábamos trabajando en", String.raw`(?:estabamos|estaba)\s+trabajando\s+en`),
  es(
    "sigamos donde lo dejamos",
    String.raw`(?:sigamos|continuemos|retomemos|seguimos|continuamos|retomamos)\s+(?:desde\s+)?donde\s+lo\s+dejamos`,
  ),
  es("perdiste el contexto", String.raw`perdiste\s+(?:el\s+)?(?:contexto|hilo)`),
  fr("tu as oublié", String.raw`(?:tu\s+as|as-?\s*tu)\s+(?:tout\s+|deja\s+)?oublie(?:e|s|es)?${NOT_DE}`),
  fr("t'as oublié", String.raw`t'\s*as\s+(?:tout\s+|deja\s+)?oublie(?:e|s|es)?${NOT_DE}`),
  fr(
    "vous avez oublié",
    String.raw`(?:vous\s+avez|avez-?\s*vous)\s+(?:tout\s+|deja\s+)?oublie(?:e|s|es)?${NOT_DE}`,
  ),
  fr(
    "où en étions-nous",
    String.raw`ou\s+en\s+(?:etions-?\s*nous|etais-?\s*je|etait-?\s*on|sommes-?\s*nous|est-?\s*on)|on\s+en\s+etait\s+ou`,
  ),
  fr(
    "sur quoi je travaillais",
    String.raw`sur\s+quoi\s+(?:est-?\s*ce\s+qu(?:e\s+|'))?(?:je\s+travaillais|j'etais|on\s+travaillait|nous\s+travaillions|travaillions-?\s*nous|travaillais-?\s*je)`,
  ),
  fr(
    "tu te souviens",
    String.raw`(?:tu\s+te\s+(?:souviens|rappelles)|te\s+(?:souviens|rappelles)-?\s*tu)(?:\s+(?:de|du|des|quand)(?=\s)|\s+d'|\s+qu')?`,
  ),
  fr(
    "vous vous souvenez",
    String.raw`(?:vous\s+vous\s+(?:souvenez|rappelez)|vous\s+(?:souvenez|rappelez)-?\s*vous)(?:\s+(?:de|du|des|quand)(?=\s)|\s+d'|\s+qu')?`,
  ),
  fr("on travaillait sur", String.raw`(?:on\s+travaillait|nous\s+travaillions|je\s+travaillais)\s+sur`),
  fr(
    "là où on s'était arrêté",
    String.raw`(?:(?:reprenons|reprends|reprenez|continuons|continue|continuez|on\s+reprend)\s+)?la\s+ou\s+(?:on\s+s'etait|nous\s+nous\s+etions|on\s+en\s+etait|je\s+m'etais|j'en\s+etais)(?:\s+(?:arretes?|restes?))?`,
  ),
  fr(
    "tu as perdu le contexte",
    String.raw`(?:tu\s+as|t'\s*as|vous\s+avez)\s+perdu\s+(?:le\s+)?(?:contexte|fil)`,
  ),
  de("du hast vergessen", String.raw`du\s+hast${DE_GAP}\s+vergessen${NOT_ZU}`),
  de("hast du vergessen", String.raw`hast\s+du${DE_GAP}\s+vergessen${NOT_ZU}`),
  de("Sie haben vergessen", String.raw`(?:sie\s+haben|haben\s+sie)${DE_GAP}\s+vergessen${NOT_ZU}`, SIE),
  de("wo waren wir", String.raw`wo\s+waren\s+wir`),
  de(
    "wo waren wir stehengeblieben",
    String.raw`wo\s+(?:waren|sind)\s+wir(?:\s+(?:denn|nochmal|gerade))*\s+stehen\s*geblieben`,
  ),
  de("wo haben wir aufgehört", String.raw`wo\s+(?:haben|hatten)\s+wir\s+(?:denn\s+|zuletzt\s+)?aufgehort`),
  de(
    "woran haben wir gearbeitet",
    String.raw`woran\s+(?:habe|hab|hatte|haben|hatten)\s+(?:ich|wir)(?<gap>(?:\s+[^\s.!?]+){0,3}?)\s+gearbeitet|woran\s+(?:arbeiteten|arbeitete)\s+(?:wir|ich)`,
  ),
  de(
    "erinnerst du dich",
    String.raw`(?:erinnerst\s+du\s+dich|kannst\s+du\s+dich\s+erinnern)(?:\s+(?:daran|an|wie|wann|als))?`,
  ),
  de("erinnern Sie sich", String.raw`erinnern\s+sie\s+sich(?:\s+(?:daran|an|wie|wann|als))?`, SIE),
  de("weißt du noch", String.raw`weisst\s+du\s+noch`),
  de(
    "wir haben an … gearbeitet",
    String.raw`wir\s+haben\s+(?:(?:gerade|zuletzt|vorhin|eben|doch)\s+)*an(?<gap>(?:\s+[^\s.!?]+){1,6}?)\s+gearbeitet`,
  ),
  de("wir arbeiteten an", String.raw`wir\s+arbeiteten\s+(?:gerade\s+)?an`),
  de(
    "du hast den Kontext verloren",
    String.raw`(?:du\s+hast|sie\s+haben)\s+(?:den\s+)?(?:kontext|faden|uberblick)\s+verloren`,
  ),
];

/** Whether a text may hold any built-in phrase: their patterns as one, named groups made plain. */
const ANY_PHRASE = new RegExp(
  PHRASES.map((p) => `(?:${p.re.source.replace(/\(\?<([A-Za-z]\w*)>/g, "(?:")})`).join("|"),
  "u",
);

const APOSTROPHES = /[\u2018\u2019\u02bc\u00b4`\u2032]/gu;
const DASHES = /[\u2010-\u2015]/gu;
const DIACRITICS = /[\u0300-\u036f]/gu;
const COMBINING = /[\u0300-\u036f]/u;

/** The folded text and, for each of its code units, the span of the original text it came from. */
interface Folded {
  text: string;
  start: number[];
  end: number[];
}

function foldChunk(chunk: string): string {
  return chunk
    .replace(APOSTROPHES, "'")
    .replace(DASHES, "-")
    .normalize("NFKD")
    .replace(DIACRITICS, "")
    .toLowerCase()
    .replace(/ß/gu, "ss");
}

/** Folds `text` one code point (plus its combining marks) at a time, remembering where each piece came from. */
function fold(text: string): Folded {
  const out: Folded = { text: "", start: [], end: [] };
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i) ?? 0;
    let j = i + (code > 0xffff ? 2 : 1);
    while (j < text.length && COMBINING.test(text.charAt(j))) j++;
    const folded = code < 0x80 && j === i + 1 ? text.charAt(i).toLowerCase() : foldChunk(text.slice(i, j));
    for (let k = 0; k < folded.length; k++) {
      out.start.push(i);
      out.end.push(j);
    }
    out.text += folded;
    i = j;
  }
  return out;
}

/** A text of ASCII characters only: {@link fold} makes it its lower case. */
const NON_ASCII = /[^\p{ASCII}]/u;

const EDGES = /^[\s,.;:!?¿¡…。，、！？；：~\-–—]+|[\s,.;:!?¿¡…。，、！？；：~\-–—]+$/gu;
const ZH_TRAILING_PARTICLES = /[吗呢吧啊呀嘛么]+$/u;
const CJK_EDGE = /[\p{Script=Han}]/u;

function customPhrase(phrase: string): Phrase | null {
  const folded = fold(phrase.trim()).text.replace(/\s+/gu, " ");
  if (folded === "") return null;
  const source = folded.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&").replace(/ /gu, String.raw`\s+`);
  const wordy = (ch: string): boolean => /[\p{L}\p{N}]/u.test(ch) && !CJK_EDGE.test(ch);
  const before = wordy(folded.charAt(0)) ? String.raw`(?<![\p{L}\p{N}])` : "";
  const after = wordy(folded.charAt(folded.length - 1)) ? String.raw`(?![\p{L}\p{N}])` : "";
  return { phrase: phrase.trim(), language: "custom", re: new RegExp(`${before}${source}${after}`, "dgu") };
}

interface Found {
  phrase: Phrase;
  start: number;
  end: number;
  gap: [number, number] | null;
}

function firstMatch(p: Phrase, folded: Folded, original: string): Found | null {
  for (const m of folded.text.matchAll(p.re)) {
    const span = m.indices?.[0];
    if (span === undefined || span[1] <= span[0]) continue;
    const start = folded.start[span[0]] ?? 0;
    const end = folded.end[span[1] - 1] ?? original.length;
    if (p.original !== undefined && !p.original.test(original.slice(start, end))) continue;
    const g = m.indices?.groups?.gap;
    const gap: [number, number] | null =
      g !== undefined && g[1] > g[0] ? [folded.start[g[0]] ?? start, folded.end[g[1] - 1] ?? end] : null;
    return { phrase: p, start, end, gap };
  }
  return null;
}

function restOf(text: string, f: Found): string {
  const pieces = [text.slice(0, f.start), f.gap === null ? "" : text.slice(...f.gap), text.slice(f.end)];
  let rest = pieces
    .map((p) => p.replace(EDGES, ""))
    .filter((p) => p !== "")
    .join(" ");
  if (f.phrase.language === "zh") rest = rest.replace(ZH_TRAILING_PARTICLES, "").replace(EDGES, "");
  return rest;
}

/**
 * Finds the first amnesia phrase in `text` (the earliest; at equal starts the longest; custom phrases win
 * ties), in English, Chinese, Spanish, French, German or among `extraPhrases` (matched as whole words
 * after the same folding; blank ones are ignored). Returns null when there is none.
 */
export function detectAmnesia(text: string, extraPhrases: readonly string[] = []): AmnesiaMatch | null {
  const custom = extraPhrases.map(customPhrase).filter((p): p is Phrase => p !== null);
  // Most turns hold no phrase: one scan for any of them settles that (an ASCII text folds to its lower case,
  // so the folding with its spans is only done once a phrase may be there).
  let folded = NON_ASCII.test(text) ? fold(text) : null;
  if (custom.length === 0 && !ANY_PHRASE.test(folded?.text ?? text.toLowerCase())) return null;
  folded ??= fold(text);
  let best: Found | null = null;
  for (const p of [...custom, ...PHRASES]) {
    const f = firstMatch(p, folded, text);
    if (f === null) continue;
    if (best === null || f.start < best.start || (f.start === best.start && f.end > best.end)) best = f;
  }
  if (best === null) return null;
  return { phrase: best.phrase.phrase, language: best.phrase.language, rest: restOf(text, best) };
}
