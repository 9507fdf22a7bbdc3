import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AmnesiaMatch, detectAmnesia } from "../../plugin/capture/amnesia.ts";

type Case = [text: string, expected: AmnesiaMatch | null];

const en = (phrase: string, rest: string): AmnesiaMatch => ({ phrase, language: "en", rest });
const zh = (phrase: string, rest: string): AmnesiaMatch => ({ phrase, language: "zh", rest });
const es = (phrase: string, rest: string): AmnesiaMatch => ({ phrase, language: "es", rest });
const fr = (phrase: string, rest: string): AmnesiaMatch => ({ phrase, language: "fr", rest });
const de = (phrase: string, rest: string): AmnesiaMatch => ({ phrase, language: "de", rest });

const CORPUS: Record<string, { positives: Case[]; negatives: string[] }> = {
  English: {
    positives: [
      ["you forgot the ERR_DUPLICATE_KEY fix", en("you forgot", "the ERR_DUPLICATE_KEY fix")],
      ["Did you forget what we were working on?", en("did you forget", "what we were working on")],
      ["Have you forgotten about the migration?", en("have you forgotten", "the migration")],
      ["YOU’VE FORGOTTEN the plan", en("you forgot", "the plan")],
      ["What was I working on?", en("what was I working on", "")],
      ["ok, what were we doing before lunch", en("what were we working on", "ok before lunch")],
      ["Where were we?", en("where were we", "")],
      ["So where did we leave off with the parser", en("where did we leave off", "So with the parser")],
      ["Remember when we fixed the flaky auth test?", en("remember when", "we fixed the flaky auth test")],
      ["Do you remember the ADR-016 decision", en("do you remember", "the ADR-016 decision")],
      [
        "We were working on src/auth/oauth-callback.ts",
        en("we were working on", "src/auth/oauth-callback.ts"),
      ],
      ["Let's pick up where we left off", en("pick up where we left off", "Let's")],
      ["please continue where we left off.", en("continue where we left off", "please")],
      [
        "You lost the context again, the billing refactor",
        en("you lost the context", "again, the billing refactor"),
      ],
    ],
    negatives: [
      "don't forget to run the tests",
      "I forgot my password, reset it",
      "remember to commit",
      "where is the config file",
      "what were the test results",
      "Did you forget to run the tests?",
      "where were we supposed to put the config?",
      "we are working on the parser now",
    ],
  },
  Chinese: {
    positives: [
      ["你忘了吗？", zh("你忘了", "")],
      ["你忘了吗？我们在修登录bug", zh("你忘了", "我们在修登录bug")],
      ["你是不是忘了我们在修登录的bug", zh("你是不是忘了", "我们在修登录的bug")],
      ["你忘记了ADR-016的决定", zh("你忘了", "ADR-016的决定")],
      ["我们刚才在做什么？", zh("我们刚才在做什么", "")],
      ["我之前在做什么来着", zh("我之前在做什么", "")],
      ["我们做到哪了？", zh("我们做到哪了", "")],
      ["上次做到哪了", zh("上次做到哪", "")],
      ["还记得我们修的那个bug吗？", zh("还记得…吗", "我们修的那个bug")],
      ["我们之前在改数据库迁移脚本", zh("我们之前在", "改数据库迁移脚本")],
      ["你丢了上下文，继续ERR_DUPLICATE_KEY的修复", zh("你丢了上下文", "继续ERR_DUPLICATE_KEY的修复")],
    ],
    negatives: [
      "别忘了提交",
      "不要忘记运行测试",
      "我忘了密码，帮我重置",
      "记得提交代码",
      "配置文件在哪里？",
      "测试结果是什么？",
      "我们在做一个新功能",
    ],
  },
  Spanish: {
    positives: [
      ["Olvidaste el fix de ERR_DUPLICATE_KEY", es("olvidaste", "el fix de ERR_DUPLICATE_KEY")],
      ["¿Te olvidaste de la migración?", es("te olvidaste", "la migración")],
      ["Se te olvidó lo que hacíamos", es("se te olvidó", "lo que hacíamos")],
      ["¿En qué estábamos?", es("en qué estábamos", "")],
      ["¿en que estaba trabajando ayer?", es("en qué estaba trabajando", "ayer")],
      ["¿Dónde nos quedamos?", es("dónde nos quedamos", "")],
      ["¿Recuerdas cuando arreglamos el login?", es("recuerdas cuando", "arreglamos el login")],
      ["Estábamos trabajando en el parser", es("estábamos trabajando en", "el parser")],
      ["ESTABAMOS TRABAJANDO EN la API", es("estábamos trabajando en", "la API")],
      ["Sigamos donde lo dejamos", es("sigamos donde lo dejamos", "")],
    ],
    negatives: [
      "olvidé mi contraseña",
      "no olvides ejecutar las pruebas",
      "no te olvides de hacer commit",
      "recuerda hacer commit",
      "¿dónde está el archivo de configuración?",
      "¿cuáles fueron los resultados de las pruebas?",
      "olvidaste cerrar el archivo",
    ],
  },
  French: {
    positives: [
      ["Tu as oublié le fix ERR_DUPLICATE_KEY", fr("tu as oublié", "le fix ERR_DUPLICATE_KEY")],
      ["t’as oublié ce qu’on faisait ?", fr("t'as oublié", "ce qu’on faisait")],
      ["Vous avez oublié la migration", fr("vous avez oublié", "la migration")],
      ["Où en étions-nous ?", fr("où en étions-nous", "")],
      ["ou en etais je", fr("où en étions-nous", "")],
      ["Sur quoi je travaillais ?", fr("sur quoi je travaillais", "")],
      ["sur quoi on travaillait hier", fr("sur quoi je travaillais", "hier")],
      ["Tu te souviens de la décision ADR-016 ?", fr("tu te souviens", "la décision ADR-016")],
      ["Vous vous souvenez du bug de login ?", fr("vous vous souvenez", "bug de login")],
      ["On travaillait sur le parser", fr("on travaillait sur", "le parser")],
    ],
    negatives: [
      "n'oublie pas de lancer les tests",
      "N’oubliez pas le commit",
      "j'ai oublié mon mot de passe",
      "souviens-toi de committer",
      "où est le fichier de configuration ?",
      "quels étaient les résultats des tests ?",
      "tu as oublié de lancer les tests",
    ],
  },
  German: {
    positives: [
      [
        "Du hast vergessen, woran wir gearbeitet haben",
        de("du hast vergessen", "woran wir gearbeitet haben"),
      ],
      ["Du hast den Fix vergessen", de("du hast vergessen", "den Fix")],
      ["Hast du vergessen, was wir gemacht haben?", de("hast du vergessen", "was wir gemacht haben")],
      ["Sie haben den Fix vergessen", de("Sie haben vergessen", "den Fix")],
      ["Wo waren wir?", de("wo waren wir", "")],
      ["Wo waren wir stehengeblieben?", de("wo waren wir stehengeblieben", "")],
      ["Woran habe ich gearbeitet?", de("woran haben wir gearbeitet", "")],
      ["woran haben wir gestern gearbeitet", de("woran haben wir gearbeitet", "gestern")],
      ["Erinnerst du dich an die Migration?", de("erinnerst du dich", "die Migration")],
      ["Wir haben an der Migration gearbeitet", de("wir haben an … gearbeitet", "der Migration")],
      ["WEISST DU NOCH, der ERR_DUPLICATE_KEY Fehler", de("weißt du noch", "der ERR_DUPLICATE_KEY Fehler")],
    ],
    negatives: [
      "Vergiss nicht, die Tests zu starten",
      "Ich habe mein Passwort vergessen",
      "Denk daran zu committen",
      "Wo ist die Konfigurationsdatei?",
      "Was waren die Testergebnisse?",
      "Vergessen Sie nicht zu committen",
      "du hast vergessen, die Datei zu speichern",
      "sie haben das Passwort vergessen",
    ],
  },
};

describe("detectAmnesia", () => {
  for (const [language, { positives, negatives }] of Object.entries(CORPUS)) {
    it.each(positives)(`recognises the ${language} phrase in %j`, (text, expected) => {
      expect(detectAmnesia(text)).toEqual(expected);
    });
    it.each(negatives)(`does not trigger on the ordinary ${language} request %j`, (text) => {
      expect(detectAmnesia(text)).toBeNull();
    });
  }

  it("keeps the words inside a split phrase in rest", () => {
    expect(detectAmnesia("du hast den ERR_DUPLICATE_KEY Fix vergessen")).toEqual(
      de("du hast vergessen", "den ERR_DUPLICATE_KEY Fix"),
    );
  });

  it("picks the earliest phrase when a message holds several", () => {
    expect(detectAmnesia("where were we? you forgot the migration")).toEqual(
      en("where were we", "you forgot the migration"),
    );
  });

  it("matches decomposed accents and full-width punctuation", () => {
    expect(detectAmnesia("¿En que\u0301 esta\u0301bamos？ el parser")).toEqual(
      es("en qué estábamos", "el parser"),
    );
  });

  it("matches a custom phrase as a whole word, ignoring case and accents", () => {
    expect(detectAmnesia("bro, AMNESIA again? the parser", ["amnesia again"])).toEqual({
      phrase: "amnesia again",
      language: "custom",
      rest: "bro the parser",
    });
    expect(detectAmnesia("DEJA VU moment", ["déjà vu"])).toEqual({
      phrase: "déjà vu",
      language: "custom",
      rest: "moment",
    });
    expect(detectAmnesia("this is lostness", ["lost"])).toBeNull();
  });

  it("matches a custom CJK phrase inside a sentence", () => {
    expect(detectAmnesia("你又失忆了，数据库那个", ["失忆了"])).toEqual({
      phrase: "失忆了",
      language: "custom",
      rest: "你又 数据库那个",
    });
  });

  it("prefers a custom phrase over a built-in one at the same place", () => {
    expect(detectAmnesia("you forgot the plan", ["you forgot"])).toEqual({
      phrase: "you forgot",
      language: "custom",
      rest: "the plan",
    });
  });

  it("ignores blank custom phrases", () => {
    expect(detectAmnesia("hello there", ["", "   "])).toBeNull();
  });

  it("returns a rest no longer than the message for any text", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 60 }),
        fc.constantFrom("you forgot", "你忘了", "où en étions-nous", "wo waren wir", ""),
        fc.string({ unit: "grapheme", maxLength: 60 }),
        (before, phrase, after) => {
          const text = `${before} ${phrase} ${after}`;
          const found = detectAmnesia(text);
          expect((found?.rest ?? "").length).toBeLessThanOrEqual(text.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
