import { describe, expect, it } from "vitest";
import { CONTEXT_RULES } from "../../plugin/snapshot/redact-context.ts";
import {
  compileRules,
  DeadlineExceeded,
  endingAt,
  findSecrets,
  mayFindSecrets,
  type Rule,
  rule,
  secret,
  taken,
  whole,
} from "../../plugin/snapshot/redact-engine.ts";
import { LABEL_RULES } from "../../plugin/snapshot/redact-labels.ts";
import { PROVIDER_RULES } from "../../plugin/snapshot/redact-providers.ts";

/** The secrets `rules` find in `text`, as `[kind, text]`. */
function found(rules: readonly Rule[], text: string): [string, string][] {
  return findSecrets(text, compileRules(rules)).map((f) => [f.kind, text.slice(f.start, f.end)]);
}

const pin = rule("secret-assignment", String.raw`pin=(?<secret>\d+)`, {
  triggers: ["pin="],
  pick: secret((v) => v.length >= 4),
});

describe("rule", () => {
  it("replaces the whole match by default and compiles with the g flag, and with d and y to locate groups", () => {
    const r = rule("service-token", "tok_[a-z]+", { triggers: ["tok_"] });
    expect([r.pattern.flags, r.located.flags, r.caseSensitive, r.reach]).toEqual(["g", "dy", true, 0]);
    expect(found([r], "a tok_abc b")).toEqual([["service-token", "tok_abc"]]);
  });

  it("adds the flags it is given", () => {
    expect(rule("bearer", "x", { flags: "iu", triggers: [] }).pattern.flags).toBe("giu");
  });
});

describe("locating groups", () => {
  it("runs the located pattern only for a match whose pick asks, and finds the group there", () => {
    let asked = 0;
    const r = rule("service-token", "key=(?<secret>[a-z]+)(?<tail>!?)", {
      triggers: ["key="],
      pick: (m, at) => {
        if (m.groups?.secret === "skip") return undefined;
        asked++;
        const range = at("secret");
        return range === undefined ? undefined : { start: range[0], end: range[1] };
      },
    });
    expect(found([r], "key=skip key=abc! key=xyz")).toEqual([
      ["service-token", "abc"],
      ["service-token", "xyz"],
    ]);
    expect(asked).toBe(2);
  });

  it("endingAt finds a value at the end of a match or before its closing quote", () => {
    const m = /-p(?:"(?<q>[^"]+)"|(?<b>\S+))/.exec('x -p"s3cret" y');
    expect(m).not.toBeNull();
    if (m === null) return;
    const [start, end] = endingAt(m, m.groups?.q ?? "", 1);
    expect(m.input.slice(start, end)).toBe("s3cret");
  });
});

describe("whole", () => {
  it("replaces the match when accept holds for its body group, and nothing otherwise", () => {
    const r = rule("service-token", "tok_(?<body>[a-z]+)", {
      triggers: ["tok_"],
      pick: whole((b) => b !== "xxx"),
    });
    expect(found([r], "tok_abc tok_xxx")).toEqual([["service-token", "tok_abc"]]);
  });
});

describe("secret", () => {
  it("finds a group that ends the match from the match's end, without judging a value already taken", () => {
    const judged: string[] = [];
    const accept = (v: string) => {
      judged.push(v);
      return v.length >= 4;
    };
    const first = rule("service-token", String.raw`pin=(?<secret>\d+)`, {
      triggers: ["pin="],
      pick: secret(accept, true),
    });
    const second = rule("bearer", String.raw`n=(?<secret>\d+)(?!\d)`, {
      triggers: ["n="],
      pick: secret(accept, true),
    });
    expect(found([first, second], "pin=1234 n=56789 pin=12")).toEqual([
      ["service-token", "1234"],
      ["bearer", "56789"],
    ]);
    // The second rule also matches `n=1234` inside `pin=1234`: that value was taken by the first rule, so
    // it is not judged again (`12` is: the first rule refused it).
    expect(judged).toEqual(["1234", "12", "56789", "12"]);
  });

  it("replaces only the first secret group that took part, when accept holds", () => {
    expect(found([pin], "pin=1234 pin=12")).toEqual([["secret-assignment", "1234"]]);
  });

  it("skips a match without a secret group", () => {
    const r = rule("service-token", "tok_[a-z]+", { triggers: ["tok_"], pick: secret(() => true) });
    expect(found([r], "tok_abc")).toEqual([]);
  });
});

describe("compileRules", () => {
  it("puts rules with the same triggers, case sensitivity and reach in one window group", () => {
    const a = rule("bearer", "a", { triggers: ["key"], caseSensitive: false });
    const b = rule("basic-auth", "b", { triggers: ["key"], caseSensitive: false });
    const c = rule("cli-flag", "c", { triggers: ["key"], caseSensitive: false, reach: 2 });
    const set = compileRules([a, b, c]);
    expect(set.groupOf).toEqual([0, 0, 1]);
    expect(set.maxReach).toBe(2);
  });

  it("groups the project's rules and lists each trigger's activations as a plain reading of the rules does", () => {
    const rules = [...PROVIDER_RULES, ...CONTEXT_RULES, ...LABEL_RULES];
    const set = compileRules(rules);
    // The same rule set written the obvious way: a group per distinct key, in order of first use.
    const keys = rules.map((r) => JSON.stringify([r.triggers, r.caseSensitive, r.reach]));
    const distinct = [...new Set(keys)];
    expect(set.groupOf).toEqual(keys.map((k) => distinct.indexOf(k)));
    const groups = distinct.map((k) => {
      const r = rules[keys.indexOf(k)];
      return { caseSensitive: r?.caseSensitive, reach: r?.reach, triggers: r?.triggers };
    });
    expect(set.groups).toEqual(groups);
    const literals = [...new Set(groups.flatMap((g) => (g.triggers ?? []).map((t) => t.toLowerCase())))];
    expect(set.scanner.literals).toEqual(literals);
    expect(set.activations).toEqual(
      literals.map((literal) =>
        groups.flatMap((g, group) =>
          (g.triggers ?? [])
            .filter((t) => t.toLowerCase() === literal)
            .map((trigger) => ({ group, trigger })),
        ),
      ),
    );
  });

  it("leaves an infinite reach out of maxReach", () => {
    expect(
      compileRules([rule("private-key", "x", { triggers: ["xx"], reach: Number.POSITIVE_INFINITY })])
        .maxReach,
    ).toBe(0);
  });
});

describe("findSecrets", () => {
  it("runs a rule only on the line of a trigger and the reach lines after it", () => {
    const near = rule("secret-assignment", String.raw`(?<secret>\bS3cr[a-z0-9]+)`, {
      triggers: ["pass"],
      reach: 1,
      pick: secret(() => true),
    });
    expect(found([near], "S3cra\npass:\nS3crb\nS3crc")).toEqual([["secret-assignment", "S3crb"]]);
  });

  it("opens no window for a trigger inside a marker, and one for the same word outside it", () => {
    const near = rule("secret-assignment", String.raw`(?<secret>\bS3cr[a-z0-9]+)`, {
      triggers: ["key"],
      pick: secret(() => true),
    });
    expect(found([near], "[REDACTED:private-key] S3cra")).toEqual([]);
    expect(found([near], "[REDACTED:private-key] key S3crb")).toEqual([["secret-assignment", "S3crb"]]);
    // A case-sensitive trigger in another case still lets the same literal open its line later on.
    const exact = rule("service-token", String.raw`\bS3cr[a-z0-9]+`, { triggers: ["Key"] });
    expect(found([exact], "key S3crc Key")).toEqual([["service-token", "S3crc"]]);
  });

  it("skips markers in the trigger scan only while no trigger holds the `]` that ends one", () => {
    const near = rule("secret-assignment", String.raw`(?<secret>\bS3cr[a-z0-9]+)`, {
      triggers: ["key"],
      pick: secret(() => true),
    });
    expect(compileRules([near]).markerProof).toBe(true);
    // A trigger that starts in a marker and ends past it opens its window: the scan must read the marker.
    const across = rule("secret-assignment", String.raw`(?<secret>\bS3cr[a-z0-9]+)`, {
      triggers: ["]z"],
      pick: secret(() => true),
    });
    expect(compileRules([across]).markerProof).toBe(false);
    expect(found([across], "[REDACTED:jwt]z S3cra")).toEqual([["secret-assignment", "S3cra"]]);
    expect(found([near], "[REDACTED:jwt]z S3cra [REDACTED:private-key]")).toEqual([]);
  });

  it("reads a rule with endsWith only up to the literal's last occurrence, and not without one", () => {
    const user = rule("url-credentials", "://(?<secret>[a-z0-9]+)@", {
      triggers: ["://"],
      endsWith: "@",
      pick: secret(() => true),
    });
    expect(found([user], "a://abc@x b://def@ c://ghi")).toEqual([
      ["url-credentials", "abc"],
      ["url-credentials", "def"],
    ]);
    expect(found([user], "a://abc b://def")).toEqual([]);
    expect(found([user], "a://abc\nb://def@")).toEqual([["url-credentials", "def"]]);
  });

  it("honours a case-sensitive trigger only in its own case", () => {
    const r = rule("service-token", "[Tt]ok_[a-z]+", { triggers: ["tok_"] });
    expect(found([r], "Tok_abc\ntok_def")).toEqual([["service-token", "tok_def"]]);
    const ci = rule("service-token", "[Tt]ok_[a-z]+", { triggers: ["tok_"], caseSensitive: false });
    expect(found([ci], "Tok_abc\ntok_def")).toHaveLength(2);
  });

  it("runs a rule without triggers on the whole text", () => {
    const r = rule("discord-token", String.raw`\bZ\d{3}\b`, { triggers: [] });
    expect(found([r], "a Z123\nb\nc Z456")).toEqual([
      ["discord-token", "Z123"],
      ["discord-token", "Z456"],
    ]);
  });

  it("lets an earlier rule win an overlap, and the later rule resume after the match it dropped", () => {
    const specific = rule("github-token", "ghx_[a-z]+", { triggers: ["ghx_"] });
    const generic = rule("secret-assignment", "[a-z]+=[a-z]+", { triggers: [], caseSensitive: false });
    expect(found([specific, generic], "tok=ghx_abc key=value")).toEqual([
      ["github-token", "ghx_abc"],
      ["secret-assignment", "key=value"],
    ]);
  });

  it("returns findings in text order whatever rule found them", () => {
    const a = rule("bearer", "AAA", { triggers: ["AA"] });
    const b = rule("basic-auth", "BBB", { triggers: ["BB"] });
    expect(found([a, b], "BBB AAA BBB")).toEqual([
      ["basic-auth", "BBB"],
      ["bearer", "AAA"],
      ["basic-auth", "BBB"],
    ]);
  });

  it("never matches a marker already in the text", () => {
    const r = rule("service-token", String.raw`\[?REDACTED:[a-z-]+\]?`, { triggers: ["RE"] });
    expect(found([r], "x [REDACTED:github-token] y")).toEqual([]);
  });

  it("drops an empty pick and a match whose pick refuses it", () => {
    const empty = rule("service-token", "tok_", {
      triggers: ["tok_"],
      pick: (m) => ({ start: m.index, end: m.index }),
    });
    expect(found([empty, pin], "tok_ pin=12")).toEqual([]);
  });
});

describe("findSecrets with several spans per match", () => {
  const options = rule("cli-flag", String.raw`\bcmd\b(?<rest>[^\n]*)`, {
    triggers: ["cmd"],
    resume: "end",
    pick: (m, located) =>
      Array.from((m.groups?.rest ?? "").matchAll(/-p(\S+)/dg), (o) => {
        const at = (located("rest")?.[0] ?? 0) + (o.indices?.[1]?.[0] ?? 0);
        return { start: at, end: at + (o[1] ?? "").length };
      }),
  });

  it("replaces every span a pick returns", () => {
    expect(found([options], "cmd -pone -x -ptwo")).toEqual([
      ["cli-flag", "one"],
      ["cli-flag", "two"],
    ]);
  });

  it("goes on after the match when the rule resumes at its end, so a repeated command is read once", () => {
    expect(found([options], "cmd cmd cmd -pthree")).toEqual([["cli-flag", "three"]]);
    expect(found([options], "cmd cmd")).toEqual([]);
  });

  it("stops with DeadlineExceeded once the deadline has passed", () => {
    let t = 0;
    expect(() => findSecrets("cmd -pone", compileRules([options]), { at: 0, now: () => t++ + 1 })).toThrow(
      new DeadlineExceeded(),
    );
  });
});

describe("mayFindSecrets", () => {
  const set = compileRules([pin, rule("discord-token", String.raw`\bZ\d{3}\b`, { triggers: [] })]);

  it("marks each text that holds a trigger or that a rule without triggers matches", () => {
    expect(mayFindSecrets(["pin=12", "nothing here", "Z123", "PIN=1234"], set)).toEqual([
      true,
      false,
      true,
      false,
    ]);
  });

  it("is false for every text findSecrets finds nothing in when it holds no trigger", () => {
    const texts = ["a", "", "b c d", "pi", "n="];
    expect(mayFindSecrets(texts, set)).toEqual([false, false, false, false, false]);
    expect(texts.map((t) => findSecrets(t, set))).toEqual([[], [], [], [], []]);
  });
});

describe("taken", () => {
  it("tells a pick whether its span would be dropped: in a marker, an earlier finding or before its rule's last", () => {
    const seen: [number, boolean][] = [];
    const probe = rule("bearer", "v=(?<secret>[a-z]+)", {
      triggers: ["v="],
      pick: (m) => {
        const start = m.index + 2;
        seen.push([start, taken(start)]);
        return { start, end: m.index + m[0].length };
      },
    });
    const earlier = rule("jwt", "ab", { triggers: ["ab"] });
    const text = "[REDACTED:jwt]v=ab v=cd v=[REDACTED:jwt]";
    // `v=ab`: its value is the earlier rule's finding; `v=cd`: free.
    findSecrets(text.replace("[REDACTED:jwt]v", "xv"), compileRules([earlier, probe]));
    expect(seen).toEqual([
      [3, true],
      [8, false],
    ]);
    // Outside a scan nothing is taken.
    expect(taken(3)).toBe(false);
  });
});
