import {
  appendFile,
  mkdir,
  mkdtemp,
  open,
  readFile,
  rename,
  rm,
  stat,
  truncate,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendSnapshotBlock, nextSnapshotId } from "../../plugin/store/daily-log.ts";
import {
  checkBlock,
  countLineEndings,
  factsAfter,
  factsOf,
  highestIdNumber,
  rememberedFacts,
  rememberFacts,
  separatorBefore,
} from "../../plugin/store/daily-log-facts.ts";
import { readJournal } from "../../plugin/store/journal-check.ts";
import { renderTestBlock } from "./fixtures/render-block.ts";
import { FixtureProcess } from "./fixtures/spawn.ts";

const DATE = "2026-11-22";
const START = "<!-- BIG-MEMORY-SNAPSHOT v1 -->";

let workspace: string;
let logPath: string;
const children: FixtureProcess[] = [];

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "big-memory-facts-"));
  logPath = join(workspace, "memory", `${DATE}.md`);
});

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.kill()));
  await rm(workspace, { recursive: true, force: true });
});

function append(writer: string) {
  return appendSnapshotBlock({
    workspaceDir: workspace,
    date: DATE,
    render: (id) => renderTestBlock(id, writer, `payload of ${writer}`),
  });
}

/**
 * Checks an append's result against the log as it is on disk now, as a whole read would have it: the id is the
 * next one over the text before the block (or above it), the offset is that text's size, the reported line holds
 * the start marker and the next line the id, and the block follows the text before it on a fresh line after a
 * blank line.
 */
async function expectLanded(
  result: Awaited<ReturnType<typeof append>>,
  writer: string,
  minId?: string,
): Promise<void> {
  const bytes = await readFile(logPath);
  const before = bytes.subarray(0, result.offset).toString("utf8");
  const text = bytes.toString("utf8");
  expect(result.id).toBe(minId ?? nextSnapshotId(before, DATE));
  const separator = separatorBefore(before);
  expect(bytes.subarray(result.offset).toString("utf8")).toBe(
    separator + renderTestBlock(result.id, writer, `payload of ${writer}`),
  );
  expect(result.bytes).toBe(bytes.length - result.offset);
  const lines = text.split(/\r\n|\r|\n/);
  expect(lines[result.line - 1]).toBe(START);
  expect(lines[result.line]).toBe(`<!-- snapshot-id: ${result.id} -->`);
  // The journal's record counts the ids the log held before the block as a whole read counts them.
  const { records } = await readJournal(workspace, DATE);
  const record = records.at(-1)?.record;
  expect(record).toMatchObject({ id: result.id, line: result.line, base: result.offset });
  expect(record?.count).toBe(factsOf(before, DATE).ids + 1);
}

describe("checkBlock", () => {
  const block = (eol: string) =>
    [
      "---",
      "",
      "## Task Snapshot",
      "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
      "<!-- snapshot-id: 2026-11-22-03 -->",
      "<!-- /BIG-MEMORY-SNAPSHOT -->",
      "",
    ].join(eol);

  it("returns the line of the start marker, whatever the line endings", () => {
    for (const eol of ["\n", "\r\n", "\r"]) expect(checkBlock(block(eol), "2026-11-22-03")).toBe(3);
  });

  it("refuses a block without exactly one start marker, without an end marker after it, or without its id", () => {
    const text = block("\n");
    expect(() => checkBlock(text.replace("BIG-MEMORY-SNAPSHOT v1", "x"), "2026-11-22-03")).toThrow(
      /0 start marker lines/,
    );
    expect(() => checkBlock(`${text}<!-- BIG-MEMORY-SNAPSHOT v1 -->\n`, "2026-11-22-03")).toThrow(
      /2 start marker lines/,
    );
    expect(() => checkBlock(text.replace("<!-- /BIG-MEMORY-SNAPSHOT -->", ""), "2026-11-22-03")).toThrow(
      /no end marker/,
    );
    expect(() => checkBlock(text, "2026-11-22-04")).toThrow(/does not carry its id/);
    // An id comment after the end marker is not the block's.
    const after = text
      .replace("<!-- snapshot-id: 2026-11-22-03 -->\n", "")
      .concat("<!-- snapshot-id: 2026-11-22-03 -->\n");
    expect(() => checkBlock(after, "2026-11-22-03")).toThrow(/does not carry its id/);
  });

  it("finds the id line as a pattern made of the id would, over random id lines and ids", () => {
    const id = fc.constantFrom("2026-11-22-03", "2026-11-22-3", "2026-11-22-030", "2026-11-22-0", "1-2");
    const space = fc.constantFrom("", " ", "  ", "\t", "\u00a0", "\u2028", " x", "x", "-", ">");
    const bit = fc.constantFrom("<!--", "<!-- ", "snapshot-id:", "snapshot-id: ", "-->", "->", "--", "x");
    const line = fc
      .tuple(space, fc.array(fc.oneof(bit, id, space), { maxLength: 8 }), space)
      .map(([a, parts, b]) => a + parts.join("") + b);
    // Id comments with every kind of space or stray text around each part.
    const shaped = fc
      .tuple(fc.array(space, { minLength: 5, maxLength: 5 }), id)
      .map(([s, i]) => `${s[0]}<!--${s[1]}snapshot-id:${s[2]}${i}${s[3]}-->${s[4]}`);
    const lines = fc.array(fc.oneof(line, shaped), { maxLength: 4 });
    fc.assert(
      fc.property(lines, id, (idLines, want) => {
        const text = [
          "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
          ...idLines,
          "<!-- /BIG-MEMORY-SNAPSHOT -->",
          "",
        ].join("\n");
        // The reference: a pattern made of the id, tested on every line of the block.
        const pattern = new RegExp(`^\\s*<!--\\s*snapshot-id:\\s*${want}\\s*-->\\s*$`);
        const carried = text.split(/\r\n|\r|\n/).some((l) => pattern.test(l));
        const outcome = () => {
          try {
            return checkBlock(text, want);
          } catch (error) {
            return String(error);
          }
        };
        expect(outcome()).toEqual(carried ? 0 : expect.stringContaining("does not carry its id"));
      }),
      { numRuns: 5000 },
    );
  });
});

describe("factsOf and factsAfter", () => {
  it("count lines as markdown does, the highest id of the date and its complete id comments", () => {
    const text = [
      "# notes\r\n",
      "<!-- snapshot-id: 2026-11-22-07 -->\r",
      "<!--snapshot-id:2026-11-22-3-->\n",
      "<!-- snapshot-id: 2026-11-21-40 -->\n",
      "torn <!-- snapshot-id: 2026-11-22-09",
    ].join("");
    expect(factsOf(text, DATE)).toEqual({
      bytes: Buffer.byteLength(text),
      lines: 4,
      endsWithCr: false,
      separator: "\n\n",
      highest: 9n,
      ids: 1,
    });
    expect(highestIdNumber(text, "2026-11-21")).toBe(40n);
    expect(countLineEndings("a\r\nb\rc\n\r")).toBe(4);
  });

  it("take the size in bytes as read, not as the decoded text would encode", () => {
    const bytes = Buffer.from([0x61, 0xff, 0x0a]);
    expect(factsOf(bytes.toString("utf8"), DATE, bytes.length).bytes).toBe(3);
  });

  it("carry a log's facts across an append exactly as a whole read of the joined text (property)", () => {
    const piece = fc.constantFrom(
      "\n",
      "\r\n",
      "\r",
      " ",
      "\t",
      "notes",
      "é漢",
      "<!-- snapshot-id: 2026-11-22-04 -->",
      "<!-- snapshot-id: 2026-11-22-123 -->",
      "<!-- snapshot-id: 2026-11-21-99 -->",
      "<!-- snapshot-id: 2026-11-22-0",
      `${START}\n<!-- snapshot-id: 2026-11-22-11 -->\n`,
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.nat(300), (pieces, n) => {
        const log = pieces.join("");
        const facts = factsOf(log, DATE);
        const block = renderTestBlock(`${DATE}-${String(n).padStart(2, "0")}`, "w", "payload\r\nline");
        const appended = facts.separator + block;
        expect(factsAfter(facts, appended, DATE)).toEqual(factsOf(log + appended, DATE));
      }),
      { numRuns: 500 },
    );
  });
});

describe("highestIdNumber on a log's bytes", () => {
  it("answers as on the decoded text, whatever the bytes hold (property)", () => {
    const space = fc.array(
      fc.constantFrom(" ", "\t", "\n", "\u00a0", "\u2028", "\u3000", "\ufeff", "é", "\u0085"),
      {
        maxLength: 3,
      },
    );
    // An id comment with every part varied (spaces of all kinds, case, another date, a part missing), and noise.
    const comment = fc
      .tuple(
        fc.constantFrom("<!--", "<!--", "<!", "<!--<!--"),
        space,
        fc.constantFrom("snapshot-id:", "SNAPSHOT-ID:", "snapshot-id", "note:"),
        space,
        fc.constantFrom(`${DATE}-`, `${DATE}-`, "2026-11-21-", `${DATE}`, `${DATE}-${DATE}-`),
        fc.oneof(fc.integer({ min: 0, max: 10_000 }).map(String), fc.constant("")),
        fc.constantFrom(" -->", "-->", "", "7"),
      )
      .map((parts) => parts.flat().join(""));
    const noise = fc.oneof(
      fc.constantFrom("notes ", "\n", "é漢🚀", "-->", "<!--"),
      fc.uint8Array({ maxLength: 4 }).map((b) => Buffer.from(b).toString("latin1")),
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(comment, noise), { maxLength: 12 }), fc.boolean(), (pieces, raw) => {
        // Either the pieces as UTF-8, or their characters as single bytes (invalid UTF-8 among them).
        const bytes = Buffer.from(pieces.join(""), raw ? "latin1" : "utf8");
        expect(highestIdNumber(bytes, DATE)).toBe(highestIdNumber(bytes.toString("utf8"), DATE));
      }),
      { numRuns: 2000 },
    );
    const ids = Buffer.from(
      "<!--\u00a0snapshot-id:\u2028 2026-11-22-17 -->\n<!-- Snapshot-ID: 2026-11-22-2026-11-22-9",
      "utf8",
    );
    expect(highestIdNumber(ids, DATE)).toBe(2026n);
    expect(highestIdNumber(Buffer.from("<!--\u3000snapshot-id: 2026-11-22-31 -->"), DATE)).toBe(31n);
    expect(highestIdNumber(Buffer.from("<!-- snapshot-id: é 2026-11-22-50 -->"), DATE)).toBe(0n);
    expect(nextSnapshotId(Buffer.alloc(0), DATE)).toBe(`${DATE}-01`);
  });
});

describe("remembered facts", () => {
  it("are not trusted when the log's last bytes changed under an unchanged fstat", async () => {
    const dir = await mkdtemp(join(tmpdir(), "big-memory-facts-tail-"));
    try {
      const path = join(dir, "log.md");
      const text = "# notes\nsome text\n";
      await writeFile(path, text);
      const handle = await open(path, "r+");
      try {
        const info = await handle.stat({ bigint: true });
        rememberFacts(path, info, factsOf(text, DATE), Buffer.from(text));
        expect(await rememberedFacts(path, handle, info)).toEqual(factsOf(text, DATE));
        // The same size, and the fstat as it was (an edit within the clock's resolution): the tail decides.
        await handle.write("SOME", 8);
        expect(await rememberedFacts(path, handle, info)).toBeNull();
        // Forgotten: the next look misses even with the bytes put back.
        await handle.write("some", 8);
        expect(await rememberedFacts(path, handle, info)).toBeNull();
      } finally {
        await handle.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("are not kept when someone else wrote between the append and its fstat", async () => {
    const dir = await mkdtemp(join(tmpdir(), "big-memory-facts-size-"));
    try {
      const path = join(dir, "log.md");
      await writeFile(path, "ours\nand theirs\n");
      const handle = await open(path, "r");
      try {
        const info = await handle.stat({ bigint: true });
        rememberFacts(path, info, factsOf("ours\n", DATE), Buffer.from("ours\n"));
        expect(await rememberedFacts(path, handle, info)).toBeNull();
      } finally {
        await handle.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("appendSnapshotBlock after the log changed under what it remembers", () => {
  it("reads the log again when a person appended to it (CRLF, ending mid-line)", async () => {
    await expectLanded(await append("a"), "a");
    await appendFile(logPath, "a note typed on Windows\r\nand one more line, unfinished");
    await expectLanded(await append("b"), "b");
    await appendFile(logPath, "\r\n\r\n");
    await expectLanded(await append("c"), "c");
  });

  it("reads the log again when it was cut back, and never gives a lost id again", async () => {
    await append("a");
    await append("b");
    const third = await append("c");
    await truncate(logPath, third.offset);
    const fourth = await append("d");
    expect(fourth.offset).toBe(third.offset);
    await expectLanded(fourth, "d", "2026-11-22-04");
  });

  it("reads the log again when it was replaced by another file of the same size", async () => {
    await append("a");
    const before = await readFile(logPath, "utf8");
    const inode = (await stat(logPath)).ino;
    // A model's `write` of the whole log: a new file, the same size, another id in it. Made beside the log
    // and renamed over it, so that it is another inode (a file made after an `rm` may get the same number).
    await writeFile(`${logPath}.new`, before.replace("2026-11-22-01", "2026-11-22-07"));
    await rename(`${logPath}.new`, logPath);
    expect((await stat(logPath)).size).toBe(Buffer.byteLength(before));
    expect((await stat(logPath)).ino === inode).toBe(false);
    const second = await append("b");
    expect(second.id).toBe("2026-11-22-08");
    await expectLanded(second, "b");
  });

  it("reads the log again when it was edited in place to the same size", async () => {
    await append("a");
    const handle = await open(logPath, "r+");
    try {
      const text = (await handle.readFile()).toString("utf8");
      await handle.write("2026-11-22-05", Buffer.byteLength(text.slice(0, text.indexOf("2026-11-22-01"))));
    } finally {
      await handle.close();
    }
    const second = await append("b");
    expect(second.id).toBe("2026-11-22-06");
    await expectLanded(second, "b");
  });

  it("reads the log again when another process appended to it", async () => {
    await expectLanded(await append("a"), "a");
    const child = new FixtureProcess("./append-child.ts", [workspace, DATE, "other", "4"]);
    children.push(child);
    await child.waitForLine("ready");
    child.send("go");
    expect(await child.exited).toEqual({ code: 0, signal: null });
    const mine = await append("b");
    expect(mine.id).toBe("2026-11-22-03");
    await expectLanded(mine, "b");
  }, 60_000);

  it("matches a whole read over many appends with edits in between (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom("", "note\n", "line\r\n", "mid-line", "\r", "\n\n"), {
          minLength: 1,
          maxLength: 6,
        }),
        async (edits) => {
          await rm(join(workspace, "memory"), { recursive: true, force: true });
          await rm(join(workspace, ".big-memory"), { recursive: true, force: true });
          await mkdir(join(workspace, "memory"));
          for (const [i, edit] of edits.entries()) {
            if (edit !== "") await appendFile(logPath, edit);
            await expectLanded(await append(`w${i}`), `w${i}`);
          }
        },
      ),
      { numRuns: 20 },
    );
  });
});
