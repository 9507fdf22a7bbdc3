import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { textSpan } from "../../plugin/snapshot/block-span.ts";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { REDACTION_RULES_VERSION } from "../../plugin/snapshot/redact.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import {
  forgetJudged,
  JUDGED_FILE,
  judgedFor,
  judgedKey,
  judgedKeyPath,
  loadJudged,
  saveJudgedNow,
} from "../../plugin/store/judged-memory.ts";
import { readAllSnapshots } from "../../plugin/store/snapshots.ts";
import { snapshot as snap } from "../builders.ts";

const token = `ghp_${"Pr5e".repeat(9)}`;
const clean = renderSnapshot(snap("2026-11-20-01", { goal: "ship the parser" }));
// A verified block holding a secret: what a log written under older rules (or by hand, with its checksum
// computed) looks like. Reading it must never hand the token back.
const secret = renderSnapshot(snap("2026-11-20-02", { goal: `push with ${token}` }));
const checksumOf = (block: string) =>
  parseDailyLog(block, "memory/2026-11-20.md").snapshots[0]?.checksum ?? "";
/** The key of a canonical block's text (block-span.ts): the fast reader's memory of the block. */
const spanOf = (block: string) => textSpan(block, block.indexOf("<!-- BIG-MEMORY-SNAPSHOT"))?.key ?? "";

let root: string;
let ws: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "bm-judged-"));
  ws = join(root, "ws");
  mkdirSync(join(ws, "memory"), { recursive: true });
  mkdirSync(join(ws, ".big-memory"), { mode: 0o700 });
  writeFileSync(join(ws, "memory", "2026-11-20.md"), `${clean}\n${secret}`);
  env = { XDG_STATE_HOME: join(root, "state") };
  forgetJudged();
});

afterEach(() => {
  forgetJudged();
  rmSync(root, { recursive: true, force: true });
});

/** Writes a memory file as an attacker who can write `.big-memory/` would. */
function plant(content: unknown): void {
  writeFileSync(
    join(ws, ".big-memory", JUDGED_FILE),
    typeof content === "string" ? content : JSON.stringify(content),
  );
}

function mac(key: Buffer, version: string, checksums: string[]): string {
  return createHmac("sha256", key).update(version).update("\n").update(checksums.join("\n")).digest("hex");
}

const goals = async () => (await readAllSnapshots(ws)).snapshots.map((s) => s.snapshot.goal);

describe("the workspace's memory", () => {
  it("keeps a checksum read out of a log (a slice of its text) as an equal string, loaded or new", () => {
    const memory = judgedFor(ws, env);
    const log = `${"notes ".repeat(5000)}\n${clean}`;
    const checksum = checksumOf(log);
    expect(checksum).toMatch(/^sha256:[0-9a-f]{64}$/);
    memory.add(checksum);
    expect(memory.has(checksum)).toBe(true);
    expect(memory.toJSON().checksums).toContain(checksum);
    const loaded = loadJudged(ws, Buffer.alloc(32));
    loaded.add(checksum);
    expect(loaded.has(checksum)).toBe(true);
  });
});

describe("the judged-blocks memory on disk", () => {
  it("keeps its key outside the workspace, 0600 in 0700, and the same key on the next use", () => {
    const key = judgedKey(env);
    expect(key?.length).toBe(32);
    const path = judgedKeyPath(env);
    expect(path.startsWith(join(root, "state"))).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700);
    expect(judgedKey(env)?.equals(key ?? Buffer.alloc(0))).toBe(true);
  });

  it("is written signed, 0600, with the clean block only, and read back by the next process", async () => {
    judgedFor(ws, env);
    expect(await goals()).toEqual(["ship the parser", "push with [REDACTED:github-token]"]);
    saveJudgedNow(ws);
    const path = join(ws, ".big-memory", JUDGED_FILE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const written = JSON.parse(readFileSync(path, "utf8"));
    expect(written.version).toBe(REDACTION_RULES_VERSION);
    expect(written.checksums).toEqual([checksumOf(clean), spanOf(clean)]);
    forgetJudged();
    const again = judgedFor(ws, env);
    expect([again.has(checksumOf(clean)), again.has(checksumOf(secret))]).toEqual([true, false]);
    expect([again.has(spanOf(clean)), again.has(spanOf(secret))]).toEqual([true, false]);
    expect(await goals()).toEqual(["ship the parser", "push with [REDACTED:github-token]"]);
  });

  it("is written a moment after a read, off the event loop, as the exit's write would, and read back", async () => {
    judgedFor(ws, env);
    await goals();
    const path = join(ws, ".big-memory", JUDGED_FILE);
    for (let waited = 0; !existsSync(path) && waited < 10_000; waited += 50) await sleep(50);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const written = JSON.parse(readFileSync(path, "utf8"));
    expect(written.version).toBe(REDACTION_RULES_VERSION);
    expect(written.checksums).toEqual([checksumOf(clean), spanOf(clean)]);
    expect(readFileSync(path, "utf8")).not.toContain(token);
    forgetJudged();
    expect(judgedFor(ws, env).has(checksumOf(clean))).toBe(true);
  });

  it("is not written into a workspace without a state folder", async () => {
    rmSync(join(ws, ".big-memory"), { recursive: true });
    judgedFor(ws, env);
    await goals();
    saveJudgedNow(ws);
    expect(() => statSync(join(ws, ".big-memory"))).toThrow();
  });
});

describe("a memory file written by someone else cannot make a secret pass", () => {
  const key = () => judgedKey(env) ?? Buffer.alloc(32);

  it("a forged checksum list without the key's signature is ignored", async () => {
    const checksums = [checksumOf(clean), checksumOf(secret)];
    for (const forged of [
      { version: REDACTION_RULES_VERSION, checksums },
      { version: REDACTION_RULES_VERSION, checksums, mac: "00".repeat(32) },
      {
        version: REDACTION_RULES_VERSION,
        checksums,
        mac: mac(Buffer.alloc(32, 7), REDACTION_RULES_VERSION, checksums),
      },
      // A signature copied from a genuine file over a list that has grown.
      {
        version: REDACTION_RULES_VERSION,
        checksums,
        mac: mac(key(), REDACTION_RULES_VERSION, [checksums[0] ?? ""]),
      },
    ]) {
      plant(forged);
      forgetJudged();
      expect(loadJudged(ws, key()).size).toBe(0);
      judgedFor(ws, env);
      expect(await goals()).toContain("push with [REDACTED:github-token]");
    }
  });

  it("a signed memory of other rules is forgotten: a change of rules judges every block again", async () => {
    const checksums = [checksumOf(clean), checksumOf(secret)];
    plant({ version: "rules before an edit", checksums, mac: mac(key(), "rules before an edit", checksums) });
    expect(loadJudged(ws, key()).size).toBe(0);
    judgedFor(ws, env);
    expect(await goals()).toEqual(["ship the parser", "push with [REDACTED:github-token]"]);
    saveJudgedNow(ws);
    const written = JSON.parse(readFileSync(join(ws, ".big-memory", JUDGED_FILE), "utf8"));
    expect([written.version, written.checksums]).toEqual([
      REDACTION_RULES_VERSION,
      [checksumOf(clean), spanOf(clean)],
    ]);
  });

  it("a remembered checksum does not cover a block edited after it was judged", async () => {
    const checksums = [checksumOf(clean)];
    plant({
      version: REDACTION_RULES_VERSION,
      checksums,
      mac: mac(key(), REDACTION_RULES_VERSION, checksums),
    });
    writeFileSync(join(ws, "memory", "2026-11-20.md"), clean.replace("ship the parser", `ship ${token}`));
    judgedFor(ws, env);
    expect(await goals()).toEqual(["ship [REDACTED:github-token]"]);
  });

  it("garbage, an oversize list, bad checksums, a FIFO, a link and a folder are ignored without blocking", async () => {
    const path = join(ws, ".big-memory", JUDGED_FILE);
    const many = Array.from({ length: 50_001 }, (_, i) => `sha256:${i.toString(16).padStart(64, "0")}`);
    const cases: [string, () => void][] = [
      ["garbage", () => plant("{not json")],
      ["null", () => plant("null")],
      [
        "oversize",
        () =>
          plant({
            version: REDACTION_RULES_VERSION,
            checksums: many,
            mac: mac(key(), REDACTION_RULES_VERSION, many),
          }),
      ],
      [
        "bad checksum",
        () =>
          plant({
            version: REDACTION_RULES_VERSION,
            checksums: ["x"],
            mac: mac(key(), REDACTION_RULES_VERSION, ["x"]),
          }),
      ],
      ["fifo", () => execFileSync("mkfifo", [path])],
      [
        "link",
        () => {
          const outside = join(root, "outside.json");
          const checksums = [checksumOf(secret)];
          writeFileSync(
            outside,
            JSON.stringify({
              version: REDACTION_RULES_VERSION,
              checksums,
              mac: mac(key(), REDACTION_RULES_VERSION, checksums),
            }),
          );
          symlinkSync(outside, path);
        },
      ],
      ["folder", () => mkdirSync(path)],
    ];
    for (const [name, make] of cases) {
      rmSync(path, { recursive: true, force: true });
      make();
      forgetJudged();
      expect([name, loadJudged(ws, key()).size]).toEqual([name, 0]);
      judgedFor(ws, env);
      expect([name, await goals()]).toEqual([name, ["ship the parser", "push with [REDACTED:github-token]"]]);
    }
  });
});
