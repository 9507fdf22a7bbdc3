import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TrailFile } from "../../plugin/capture/trail.ts";
import {
  commandDir,
  commandFileOps,
  countHabit,
  isScratch,
  mentionedPaths,
  normalizePath,
  samePath,
  touchFile,
} from "../../plugin/capture/trail-files.ts";

const AT = "2026-11-22T10:00:00.000Z";
const file = (path: string, writes: number, extra: Partial<TrailFile> = {}): TrailFile => ({
  path,
  reads: 0,
  writes,
  created: false,
  lastAction: writes > 0 ? "edit" : "read",
  lastSeen: AT,
  ...extra,
});

describe("commandFileOps", () => {
  it("reads the file a heredoc or an in-place sed writes", () => {
    expect(commandFileOps("cat > /testbed/reproduce.py << 'EOF'\nimport x\nEOF")).toEqual([
      { path: "/testbed/reproduce.py", action: "write" },
    ]);
    expect(commandFileOps("cd /repo && sed -i 's/old/new/' src/app.py")).toEqual([
      { path: "src/app.py", action: "edit" },
    ]);
    expect(commandFileOps("cat src/app.py")).toEqual([]);
  });

  it("reads the file a download saves to", () => {
    // A session's shape: an icon fetched for a desktop entry.
    expect(
      commandFileOps(
        'curl -L "https://cdn.example.com/icon.png?c=1" -o ~/.local/share/icons/claude-code.png',
      ),
    ).toEqual([{ path: "~/.local/share/icons/claude-code.png", action: "write" }]);
    expect(commandFileOps("curl -sSLo bin/tool https://x/tool && chmod +x bin/tool")).toEqual([
      { path: "bin/tool", action: "write" },
    ]);
    expect(commandFileOps("wget -q https://x/a.tar.gz -O /tmp/a.tar.gz")).toEqual([
      { path: "/tmp/a.tar.gz", action: "write" },
    ]);
    expect(commandFileOps("curl -s https://x/api -o /dev/null -w '%{http_code}'")).toEqual([]);
    expect(commandFileOps("curl -s https://x/api | jq .")).toEqual([]);
  });
});

describe("commandDir", () => {
  it("reads the folder a command line starts in", () => {
    expect(commandDir("cd /testbed && python x.py")).toBe("/testbed");
    expect(commandDir("python x.py")).toBeNull();
  });
});

describe("normalizePath and samePath", () => {
  it("keeps paths relative to the workspace or the harness root", () => {
    const roots = { workspaceDir: "/ws", root: "/testbed" };
    expect(normalizePath("/testbed/astropy/io/fits/card.py", roots, 300)).toBe("astropy/io/fits/card.py");
    expect(normalizePath("/ws/src/a.ts", roots, 300)).toBe("src/a.ts");
    expect(normalizePath("./memory/2026-11-22.md", roots, 300)).toBeNull();
    expect(normalizePath("src/*.ts", roots, 300)).toBeNull();
    expect(normalizePath("app/[slug]/page.tsx", roots, 300)).toBe("app/[slug]/page.tsx");
  });

  it("sees an absolute spelling and a relative one as one file", () => {
    expect(samePath("/workspace/repo/src/a.py", "src/a.py")).toBe(true);
    expect(samePath("/workspace/repo/src/a.py", "a.py")).toBe(false);
    expect(samePath("src/a.py", "lib/a.py")).toBe(false);
    // A path relative to a parent folder, as an agent writes it after `cd packages/app`.
    expect(samePath("packages/app/src/a.ts", "src/a.ts")).toBe(true);
  });
});

describe("touchFile", () => {
  it("merges spellings of one file and keeps the relative one", () => {
    const files = touchFile([file("src/a.py", 1)], { path: "/repo/src/a.py", action: "edit" }, AT, 40);
    expect(files).toEqual([file("src/a.py", 2)]);
  });

  it("evicts files only read before a file that changed, so an early edit stays", () => {
    let files = [file("src/main.py", 1)];
    for (let i = 0; i < 5; i++) files = touchFile(files, { path: `lib/r${i}.py`, action: "read" }, AT, 3);
    expect(files.map((f) => f.path)).toEqual(["src/main.py", "lib/r3.py", "lib/r4.py"]);
  });

  it("adds a named path without overriding what a tool did", () => {
    const files = touchFile([file("src/a.py", 1)], { path: "src/a.py", action: "mention" }, AT, 40);
    expect(files).toEqual([file("src/a.py", 1)]);
    expect(touchFile([], { path: "migrations/0042_unique_session.sql", action: "mention" }, AT, 40)).toEqual([
      file("migrations/0042_unique_session.sql", 0, { lastAction: "mention" }),
    ]);
  });
  it("answers as find, filter and a copy cut from the front would, over random touches", () => {
    // The reference: the first file of the same spelling replaced, unchanged files dropped first past `max`.
    const reference = (files: TrailFile[], op: { path: string; action: "read" | "edit" }, max: number) => {
      const old = files.find((f) => samePath(f.path, op.path));
      const read = op.action === "read";
      const next: TrailFile = {
        path: old === undefined ? op.path : (touchFile([old], op, AT, 1)[0]?.path ?? ""),
        reads: (old?.reads ?? 0) + (read ? 1 : 0),
        writes: (old?.writes ?? 0) + (read ? 0 : 1),
        created: old?.created ?? false,
        lastAction: op.action,
        lastSeen: AT,
      };
      const kept = [...files.filter((f) => f !== old), next];
      while (kept.length > max)
        kept.splice(
          Math.max(
            kept.findIndex((f) => f.writes === 0),
            0,
          ),
          1,
        );
      return kept;
    };
    const op = fc.record({
      path: fc.constantFrom("a.py", "src/a.py", "/repo/src/a.py", "lib/b.py", "c.py"),
      action: fc.constantFrom("read" as const, "edit" as const),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), fc.integer({ min: 1, max: 6 }), (ops, max) => {
        let files: TrailFile[] = [];
        for (const o of ops) {
          const expected = reference(files, o, max);
          files = touchFile(files, o, AT, max);
          expect(files).toEqual(expected);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("countHabit", () => {
  it("counts runs of a command, moves it last, and drops the one run least often (the oldest among equals)", () => {
    let habits = countHabit([], "npm test", 3);
    habits = countHabit(habits, "git status", 3);
    habits = countHabit(habits, "npm test", 3);
    expect(habits).toEqual([
      { command: "git status", runs: 1 },
      { command: "npm test", runs: 2 },
    ]);
    habits = countHabit(countHabit(habits, "ls", 3), "make", 3);
    expect(habits.map((h) => h.command)).toEqual(["npm test", "ls", "make"]);
    expect(countHabit(habits, "", 3)).toEqual(habits);
  });

  it("drops a command that checks a change (tests, builds) after every other", () => {
    let habits = countHabit([], "go test ./...", 3);
    for (const c of ["ls", "git status", "cat a", "cat b"]) habits = countHabit(habits, c, 3);
    expect(habits.map((h) => h.command)).toEqual(["go test ./...", "cat a", "cat b"]);
  });
});

describe("isScratch", () => {
  it("tells scratch scripts at the root or in /tmp from project files", () => {
    expect(isScratch(file("reproduce_issue.py", 1, { created: true }))).toBe(true);
    expect(isScratch(file("/tmp/check.js", 1))).toBe(true);
    expect(isScratch(file("astropy/io/fits/card.py", 3))).toBe(false);
    expect(isScratch(file("tests/test_reproduce.py", 1))).toBe(false);
  });
});

describe("mentionedPaths", () => {
  it("reads the paths prose names", () => {
    expect(
      mentionedPaths(
        "Plan: an upsert, then a unique index in migrations/0042_unique_session.sql (see src/db.ts).",
        5,
      ),
    ).toEqual(["migrations/0042_unique_session.sql", "src/db.ts"]);
    expect(mentionedPaths("see https://example.com/a/b.html", 5)).toEqual([]);
  });
});
