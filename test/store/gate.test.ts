import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  appendPrivateJsonLine,
  appendPrivateText,
  ensurePrivateDir,
  type GatedText,
  gatedTextOf,
  gateJsonLineWith,
  gateTextOnce,
  OutsideWorkspaceError,
  refuseLinkedStateDir,
  resolveInside,
  rewriteUserLog,
  STATE_GITIGNORE,
  secureStateDir,
  syncWritten,
  writePrivateBytes,
  writePrivateJson,
  writePrivateText,
} from "../../plugin/store/gate.ts";

const TOKEN = `ghp_${"r2D2".repeat(9)}`;
const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "big-memory-gate-")));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("ensurePrivateDir", () => {
  it("creates missing folders 0700, outermost first, whatever the umask", async () => {
    const previous = process.umask(0o000);
    try {
      const target = join(dir, "a", "b", "c");
      expect(await ensurePrivateDir(target)).toEqual([join(dir, "a"), join(dir, "a", "b"), target]);
      for (const folder of ["a", "a/b", "a/b/c"]) expect(await mode(join(dir, folder))).toBe("700");
      expect(await ensurePrivateDir(target)).toEqual([]);
    } finally {
      process.umask(previous);
    }
  });

  it("gives a created .big-memory folder a .gitignore that ignores everything", async () => {
    await ensurePrivateDir(join(dir, ".big-memory", "sessions"));
    expect(await readFile(join(dir, ".big-memory", ".gitignore"), "utf8")).toBe(STATE_GITIGNORE);
    expect(await mode(join(dir, ".big-memory", ".gitignore"))).toBe("600");
  });
});

describe("secureStateDir", () => {
  it("makes a state folder of an older version private and reports what it changed", async () => {
    const state = join(dir, ".big-memory");
    await mkdir(state);
    await chmod(state, 0o755);
    expect(await secureStateDir(state)).toEqual([
      ".big-memory/ mode 755 -> 700",
      ".big-memory/.gitignore written",
    ]);
    expect(await mode(state)).toBe("700");
    expect(await secureStateDir(state)).toEqual([]);
  });

  it("does nothing when there is no state folder yet", async () => {
    expect(await secureStateDir(join(dir, ".big-memory"))).toEqual([]);
    await expect(stat(join(dir, ".big-memory"))).rejects.toThrow(/ENOENT/);
  });
});

describe("gateTextOnce", () => {
  it("gives back the redacted text, and a handle to it that only the gate makes", () => {
    const once = gateTextOnce(`GITHUB_TOKEN=${TOKEN}\n`);
    expect(once.text).toBe("GITHUB_TOKEN=[REDACTED:github-token]\n");
    expect(once.total).toBe(1);
    expect(gatedTextOf(once.gated)).toBe(once.text);
    // A look-alike object is not a text the gate gave back: nothing is written from it.
    const forged = { gated: true } as GatedText;
    expect(() => gatedTextOf(forged)).toThrow("a text passed as gated was not made by the gate");
  });
});

describe("gateJsonLineWith", () => {
  it("gates the line's other fields and takes the gated text as it is, escaped as a JSON string", () => {
    const block = gateTextOnce(`export GITHUB_TOKEN=${TOKEN}\n"quoted" \\ line\n`);
    const line = gatedTextOf(gateJsonLineWith({ v: 1, note: `token ${TOKEN}` }, "block", block.gated));
    expect(line).not.toContain(TOKEN);
    expect(line.endsWith("}\n")).toBe(true);
    expect(JSON.parse(line)).toEqual({
      v: 1,
      note: "token [REDACTED:github-token]",
      block: block.text,
    });
    expect(block.text).toContain("[REDACTED:github-token]");
  });

  it("refuses a text the gate did not make, and gates a line with no other field whole", () => {
    expect(() => gateJsonLineWith({ v: 1 }, "block", { gated: true } as GatedText)).toThrow(
      "a text passed as gated was not made by the gate",
    );
    const line = gatedTextOf(gateJsonLineWith({}, "block", gateTextOnce("plain\n").gated));
    expect(JSON.parse(line)).toEqual({ block: "plain\n" });
  });
});

describe("appendSnapshotBlock with a gated block", () => {
  it("writes the gate's text, and a secret never reaches the log through either kind of block", async () => {
    const { appendSnapshotBlock } = await import("../../plugin/store/daily-log.ts");
    const { renderTestBlock } = await import("./fixtures/render-block.ts");
    const gated = await appendSnapshotBlock({
      workspaceDir: dir,
      date: "2026-11-22",
      render: (id) => gateTextOnce(renderTestBlock(id, "a", `push with ${TOKEN}`)).gated,
    });
    const plain = await appendSnapshotBlock({
      workspaceDir: dir,
      date: "2026-11-22",
      render: (id) => renderTestBlock(id, "b", `push with ${TOKEN}`),
    });
    const log = await readFile(join(dir, "memory", "2026-11-22.md"), "utf8");
    expect(log).not.toContain(TOKEN);
    // The journal's copies take the gated blocks as they are: no secret there either, and the same text.
    const journal = await readFile(join(dir, ".big-memory", "journal", "2026-11-22.jsonl"), "utf8");
    expect(journal).not.toContain(TOKEN);
    const copies = journal
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).block as string);
    expect(copies.every((c) => log.includes(c) && c.includes("[REDACTED:github-token]"))).toBe(true);
    expect(log).toContain(renderTestBlock(gated.id, "a", "push with [REDACTED:github-token]"));
    expect(log).toContain(renderTestBlock(plain.id, "b", "push with [REDACTED:github-token]"));
    await expect(
      appendSnapshotBlock({
        workspaceDir: dir,
        date: "2026-11-22",
        render: () => ({ gated: true }) as GatedText,
      }),
    ).rejects.toThrow("a text passed as gated was not made by the gate");
  });
});

describe("writePrivateText and writePrivateJson", () => {
  it("redact before writing, write 0600 atomically, and report the kinds", async () => {
    const path = join(dir, ".big-memory", "notes.txt");
    expect(await writePrivateText(path, `GITHUB_TOKEN=${TOKEN}\n`)).toEqual({
      counts: { "github-token": 1 },
      total: 1,
    });
    expect(await readFile(path, "utf8")).toBe("GITHUB_TOKEN=[REDACTED:github-token]\n");
    expect(await mode(path)).toBe("600");
    const json = join(dir, ".big-memory", "state.json");
    const written = await writePrivateJson(json, { version: 1, asks: [`push with ${TOKEN}`] });
    expect(written.value).toEqual({ version: 1, asks: ["push with [REDACTED:github-token]"] });
    expect(JSON.parse(await readFile(json, "utf8"))).toEqual(written.value);
    expect(await mode(json)).toBe("600");
    expect((await readdir(join(dir, ".big-memory"))).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("replace a file of mode 0644 by one of mode 0600", async () => {
    const path = join(dir, "old.json");
    await writeFile(path, "{}", { mode: 0o644 });
    await writePrivateJson(path, {});
    expect(await mode(path)).toBe("600");
  });
});

describe("writePrivateBytes", () => {
  it("keeps the replaced file under a suffix when asked", async () => {
    const path = join(dir, "search", "2026-11.bmx");
    await writePrivateBytes(path, Buffer.from("one"), { keepPreviousAs: ".prev" });
    await writePrivateBytes(path, Buffer.from("two"), { keepPreviousAs: ".prev" });
    expect(await readFile(path, "utf8")).toBe("two");
    expect(await readFile(`${path}.prev`, "utf8")).toBe("one");
    expect(await mode(`${path}.prev`)).toBe("600");
  });

  it("with sync: false, still replaces atomically (no temp file left, 0600), for syncWritten to make durable", async () => {
    const path = join(dir, "sessions", "s.json");
    await writePrivateBytes(path, Buffer.from("one"), { sync: false });
    await writePrivateBytes(path, Buffer.from("two"), { sync: false, keepPreviousAs: ".bak" });
    expect(await readFile(path, "utf8")).toBe("two");
    expect(await readFile(`${path}.bak`, "utf8")).toBe("one");
    expect(await readdir(join(dir, "sessions"))).toEqual(["s.json", "s.json.bak"]);
    expect(await mode(path)).toBe("600");
    await syncWritten(path);
  });
});

describe("syncWritten", () => {
  it("needs nothing for a file or folder removed meanwhile", async () => {
    await syncWritten(join(dir, "gone.json"));
    await syncWritten(join(dir, "gone", "s.json"));
  });

  it("refuses a FIFO or a link put in the file's place without blocking or following it", async () => {
    const { execFileSync } = await import("node:child_process");
    execFileSync("mkfifo", [join(dir, "fifo.json")]);
    await expect(syncWritten(join(dir, "fifo.json"))).rejects.toThrow(/EINVAL/);
    await writeFile(join(dir, "target"), "x");
    await symlink(join(dir, "target"), join(dir, "link.json"));
    await syncWritten(join(dir, "link.json"));
  });
});

describe("appendPrivateText and appendPrivateJsonLine", () => {
  it("append redacted text to a 0600 file", async () => {
    const path = join(dir, ".big-memory", "restore-log.jsonl");
    await appendPrivateJsonLine(path, { id: "2026-11-22-01", note: `token ${TOKEN}` });
    await appendPrivateText(path, `{"id":"2026-11-22-02","raw":"${TOKEN}"}\n`);
    expect(await readFile(path, "utf8")).toBe(
      '{"id":"2026-11-22-01","note":"token [REDACTED:github-token]"}\n{"id":"2026-11-22-02","raw":"[REDACTED:github-token]"}\n',
    );
    expect(await mode(path)).toBe("600");
  });

  it("say whether the append created the file: the first one does, the next ones do not", async () => {
    const path = join(dir, ".big-memory", "journal", "2026-11-22.jsonl");
    expect((await appendPrivateText(path, "one\n")).created).toBe(true);
    expect((await appendPrivateText(path, "two\n", { sync: false })).created).toBe(false);
    expect(await readFile(path, "utf8")).toBe("one\ntwo\n");
    expect(await mode(path)).toBe("600");
  });
});

describe("rewriteUserLog", () => {
  it("keeps the mode of the log it replaces", async () => {
    const path = join(dir, "memory.md");
    await writeFile(path, "old", { mode: 0o640 });
    await chmod(path, 0o640);
    await rewriteUserLog(path, "new");
    expect(await readFile(path, "utf8")).toBe("new");
    expect(await mode(path)).toBe("640");
  });
});

describe("refuseLinkedStateDir", () => {
  it("says whether the target is itself a state folder found a real folder, and refuses one that is a link", async () => {
    const state = join(dir, ".big-memory");
    expect(refuseLinkedStateDir(state)).toBe(false);
    await mkdir(join(state, "sessions"), { recursive: true });
    expect([refuseLinkedStateDir(state), refuseLinkedStateDir(join(state, "sessions"))]).toEqual([
      true,
      false,
    ]);
    const linked = join(dir, "linked");
    await mkdir(linked);
    await symlink(state, join(linked, ".big-memory"));
    expect(() => refuseLinkedStateDir(join(linked, ".big-memory"))).toThrow(/refusing to write through/);
    expect(() => refuseLinkedStateDir(join(linked, ".big-memory", "sessions"))).toThrow(/it is a link to/);
  });
});

describe("resolveInside", () => {
  it("returns the real path of a path inside the workspace, existing or not", async () => {
    await mkdir(join(dir, "memory"));
    expect(await resolveInside(dir, join(dir, "memory", "2026-11-22.md"))).toBe(
      join(dir, "memory", "2026-11-22.md"),
    );
    expect(await resolveInside(dir, join(dir, "new", "deep", "file.md"))).toBe(
      join(dir, "new", "deep", "file.md"),
    );
  });

  it("follows a link that stays inside the workspace", async () => {
    await mkdir(join(dir, "notes"));
    await symlink(join(dir, "notes"), join(dir, "memory"));
    expect(await resolveInside(dir, join(dir, "memory", "x.md"))).toBe(join(dir, "notes", "x.md"));
  });

  it("refuses a folder or a file linked out of the workspace, naming both ends", async () => {
    const outside = await realpath(await mkdtemp(join(tmpdir(), "big-memory-outside-")));
    try {
      const ws = join(dir, "ws");
      await mkdir(join(ws, "memory"), { recursive: true });
      await symlink(join(outside, "stolen.md"), join(ws, "memory", "2026-11-22.md"));
      const error = await resolveInside(ws, join(ws, "memory", "2026-11-22.md")).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutsideWorkspaceError);
      expect((error as Error).message).toBe(
        `big-memory: refusing to write through ${join(ws, "memory", "2026-11-22.md")}: it resolves to ${join(outside, "stolen.md")}, outside the workspace ${ws} (a symbolic link); replace the link with a folder or file of the workspace`,
      );
      await symlink(outside, join(ws, "linked"));
      await expect(resolveInside(ws, join(ws, "linked", "a.md"))).rejects.toBeInstanceOf(
        OutsideWorkspaceError,
      );
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
