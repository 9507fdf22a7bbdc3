import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redact } from "../../plugin/snapshot/redact.ts";
import { fold, foldedFindings, mayFold, unite } from "../../plugin/snapshot/redact-fold.ts";
import { NEGATIVES, POSITIVES } from "./fixtures/secret-corpus.ts";

const ZWSP = "\u200B";
/** Characters that show nothing, and escapes that stand for one. */
const HIDDEN = [ZWSP, "\u00AD", "\u2060", "\uFEFF", "\uFE0F", "\u200D", "&#8203;", "&shy;", "\\u200b"];

/** Every ASCII character but the space in its full-width form. */
const fullWidth = (text: string) =>
  text.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
/** ASCII letters in mathematical bold. */
const bold = (text: string) =>
  text.replace(/[A-Za-z]/g, (c) =>
    String.fromCodePoint(c <= "Z" ? 0x1d400 + c.charCodeAt(0) - 65 : 0x1d41a + c.charCodeAt(0) - 97),
  );
/** Every printable ASCII character as a decimal character reference. */
const referenced = (text: string) => text.replace(/[!-~]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The text a reader sees: `text` folded. */
const seen = (text: string) => fold(text)?.text ?? text;

describe("fold", () => {
  it("drops what shows nothing, writes full-width and mathematical letters as ASCII, decodes escapes", () => {
    expect(fold(`pass${ZWSP}wo\u00ADrd`)?.text).toBe("password");
    expect(fold("ｓｅｃｒｅｔ：ｘ")?.text).toBe("secret:x");
    expect(fold(bold("token"))?.text).toBe("token");
    expect(fold("ⓟⓐⓢⓢⓦⓞⓡⓓ﹕ 🄺🄴🅈")?.text).toBe("password: KEY");
    // A word mostly of Latin letters with Cyrillic ones among them; words of one script stay as written.
    expect(fold("\u0440\u0430ssword пароль API")?.text).toBe("password пароль API");
    expect(fold("APIпароль деплой на staging")).toBeNull();
    expect(fold("a&#58;b&#x3A;c&colon;d&quot;e\\u0077f&amp;quot;")?.text).toBe('a:b:c:d"ewf"');
    // An escape split by what shows nothing, and one that stands for it.
    expect(fold(`&q${ZWSP}uot;x&#8203;y`)?.text).toBe('"xy');
  });

  it("folds every default-ignorable code point to nothing", () => {
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const c = String.fromCodePoint(code);
      if (/\p{Default_Ignorable_Code_Point}/u.test(c))
        expect(fold(`a${c}b`)?.text, code.toString(16)).toBe("ab");
    }
  });

  it("sees every character that folds, in every plane", () => {
    let folding = 0;
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const text = `a${String.fromCodePoint(code)}b`;
      if (fold(text) === null) continue;
      folding++;
      expect(mayFold(text), code.toString(16)).toBe(true);
    }
    // Every default-ignorable code point folds (to nothing).
    expect(folding).toBeGreaterThan(4000);
  });

  it("leaves what names nothing, a lone surrogate escape and the marks of CJK prose as written", () => {
    expect(fold("AT&T &nosuch; \\ud800 plain")).toBeNull();
    expect(fold("今日は会議でした（東京）。次は、資料を作ります！\n")).toBeNull();
    expect(mayFold("the quick brown fox\n")).toBe(false);
  });

  it("maps every folded character back to the characters it came from", () => {
    const text = `k&#101;y${ZWSP}=ｖ１`;
    const folded = fold(text);
    expect(folded?.text).toBe("key=v1");
    const ranges = [...(folded?.text ?? "")].map((_, i) => text.slice(folded?.from(i), folded?.to(i)));
    expect(ranges).toEqual(["k", "&#101;", "y", "=", "ｖ", "１"]);
  });

  it("maps the folded text onto the written text in order, leaving out only what folds to nothing", () => {
    const piece = fc.constantFrom(
      "a",
      "Z",
      "9",
      ":",
      " ",
      "\n",
      ...HIDDEN,
      "ｐ",
      "ａ",
      "＝",
      "&lt;",
      bold("q"),
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 30 }), (pieces) => {
        const text = pieces.join("");
        const folded = fold(text);
        if (folded === null) return;
        let last = 0;
        for (let i = 0; i < folded.text.length; i++) {
          const [from, to] = [folded.from(i), folded.to(i)];
          // What lies between two folded characters' ranges shows nothing.
          expect(seen(text.slice(last, from))).toBe("");
          expect(to).toBeGreaterThan(from);
          // A character kept as written is its own range.
          if (to - from === 1 && folded.text[i] !== text[from]) expect(text[from]).toMatch(/[\uFF01-\uFF5E]/);
          last = to;
        }
        expect(seen(text.slice(last))).toBe("");
      }),
      { numRuns: 500 },
    );
  });
});

describe("foldedFindings", () => {
  it("finds in the folded lines, as spans of the written text", () => {
    const text = `notes\npass${ZWSP}word: Tr0ub4dor-Prod${ZWSP}9\nmore`;
    const found = foldedFindings(text, 1, (folded) => {
      const at = folded.indexOf("Tr0ub4dor-Prod9");
      return at < 0 ? [] : [{ kind: "secret-assignment", start: at, end: at + 15 }];
    });
    expect(found.map((f) => text.slice(f.start, f.end))).toEqual([`Tr0ub4dor-Prod${ZWSP}9`]);
    expect(foldedFindings("nothing to fold here", 1, () => [{ kind: "jwt", start: 0, end: 1 }])).toEqual([]);
  });

  it("unites findings that overlap, keeping the kind of the first", () => {
    expect(
      unite(
        [
          { kind: "jwt", start: 0, end: 5 },
          { kind: "jwt", start: 20, end: 22 },
        ],
        [
          { kind: "bearer", start: 3, end: 9 },
          { kind: "bearer", start: 12, end: 14 },
        ],
      ),
    ).toEqual([
      { kind: "jwt", start: 0, end: 9 },
      { kind: "bearer", start: 12, end: 14 },
      { kind: "jwt", start: 20, end: 22 },
    ]);
  });
});

describe("redact on text written to hide a secret", () => {
  it("redacts a secret whose label or value is split, written wide or in bold, or escaped", () => {
    const cases = [
      `pass${ZWSP}word: Tr0ub4dor-Prod`,
      "password&#58; Tr0ub4dor-Prod",
      "ｓｅｃｒｅｔ：Ｘｋ９ｍＰ２ｖＬｑ７ｗ",
      `${bold("password")}: Tr0ub4dor-Prod`,
      "pass\\u0077ord = 'Tr0ub4dor-Prod'",
      "&amp;quot;db_password&amp;quot;: &amp;quot;Tr0ub4dor-Prod&amp;quot;",
      "&quot;password&quot;: &quot;Tr0ub4dor-Prod&quot;",
      "&lt;password&gt;Tr0ub4dor-Prod&lt;/password&gt;",
      "DB_PASSWORD ＝ Tr0ub4dor-Prod",
      // No-break spaces, as pasted from a web page; French typography's narrow one before a colon.
      "password:\u00A0Tr0ub4dor-Prod",
      "the\u00A0password\u00A0is\u00A0Tr0ub4dor-Prod",
      "mot de passe\u202F: Tr0ub4dor-Prod",
      "password:\u3000Tr0ub4dor-Prod",
      // Inline HTML, as pasted from a mail or an exported wiki page.
      "<b>Password:</b> Tr0ub4dor-Prod",
      "<p><strong>Password</strong>: Tr0ub4dor-Prod<br>User: admin</p>",
      "password = <code>Tr0ub4dor-Prod</code>",
      // Cyrillic letters that look like Latin ones, in a word of Latin letters.
      "\u0440\u0430ssword: Tr0ub4dor-Prod",
      "DB_P\u0410SSW\u041ERD=Tr0ub4dor-Prod",
      // As a CJK input method writes Latin letters, alone or among the words of the script.
      "ｐａｓｓｗｏｒｄ：Tr0ub4dor-Prod",
      "サーバーのＰＡＳＳＷＯＲＤ：Ｔｒ０ｕｂ４ｄｏｒ－Ｐｒｏｄ",
    ];
    for (const text of cases) {
      const once = redact(text);
      expect(once.total, text).toBeGreaterThan(0);
      expect(seen(once.text), text).not.toMatch(/Tr0ub4dor|Xk9mP2vLq7w/);
      expect(once.text, text).not.toMatch(/Ｔｒ０ｕｂ/);
      expect(redact(once.text)).toEqual({ text: once.text, counts: {}, total: 0 });
    }
  });

  it("redacts every secret of the corpus with something that shows nothing put anywhere in its text", () => {
    const cases = fc.tuple(
      fc.constantFrom(...POSITIVES),
      fc.constantFrom(...HIDDEN),
      fc.double({ min: 0, max: 1 }),
    );
    fc.assert(
      fc.property(cases, ([positive, hidden, where]) => {
        const at = Math.floor(where * positive.text.length);
        const text = positive.text.slice(0, at) + hidden + positive.text.slice(at);
        const out = seen(redact(text).text);
        expect(positive.secrets.filter((s) => out.includes(s))).toEqual([]);
      }),
      { numRuns: 1500 },
    );
  });

  it("redacts every secret of the corpus whose words before it are written wide, in bold or as references", () => {
    for (const write of [fullWidth, bold, referenced]) {
      for (const positive of POSITIVES) {
        const at = Math.min(...positive.secrets.map((s) => positive.text.indexOf(s)).filter((i) => i >= 0));
        const text = write(positive.text.slice(0, at)) + positive.text.slice(at);
        const out = seen(redact(text).text);
        expect(
          positive.secrets.filter((s) => out.includes(s)),
          `${write.name}: ${positive.name}`,
        ).toEqual([]);
      }
    }
  });

  it("leaves every hard negative of the corpus as it was, written wide or with characters that show nothing", () => {
    for (const negative of NEGATIVES) {
      for (const text of [fullWidth(negative.text), negative.text.replaceAll(" ", ` ${ZWSP}`)]) {
        expect(seen(redact(text).text), negative.name).toBe(seen(text));
      }
    }
  });
});
