import { describe, expect, it } from "vitest";
import { LogBook } from "../../plugin/search/log-book.ts";

describe("LogBook", () => {
  const fingerprint = { size: 10, mtimeMs: 1, ctimeMs: 1, ino: 7, crc32: "0000abcd" };
  const torn = { file: "memory/2026-11-20.md", line: 3, message: "snapshot block has no end marker" };
  const unreadable = {
    file: "memory/2026-11-20.md",
    line: 0,
    message: "memory/2026-11-20.md cannot be read",
  };

  it("keeps a record of each log read, and none of a log that cannot be read, so that it is read again", () => {
    const book = new LogBook();
    book.read("memory/2026-11-20.md", {
      fingerprint,
      snapshots: [],
      diagnostics: [torn],
      redactions: { email: 1 },
    });
    book.read("memory/2026-10-01.md", { fingerprint, snapshots: [], diagnostics: [], redactions: {} });
    expect(Object.keys(book.ofMonth("2026-11"))).toEqual(["memory/2026-11-20.md"]);
    expect([book.diagnostics(), book.totals()]).toEqual([
      [torn],
      { files: 2, bytes: 20, redactions: { email: 1 } },
    ]);
    // The same bytes read again (only the times moved): the record's problems and redactions stay.
    const moved = { ...fingerprint, mtimeMs: 2 };
    book.read("memory/2026-11-20.md", {
      fingerprint: moved,
      snapshots: [],
      diagnostics: [],
      redactions: {},
      same: true,
    });
    expect(book.record("memory/2026-11-20.md")).toEqual({
      ...moved,
      problems: [{ line: 3, message: torn.message }],
      redactions: { email: 1 },
    });
    book.cannotRead(unreadable);
    expect([
      book.record("memory/2026-11-20.md"),
      book.ofMonth("2026-11"),
      book.unreadable(),
      book.diagnostics(),
    ]).toEqual([undefined, {}, ["memory/2026-11-20.md"], [unreadable]]);
    book.gone("memory/2026-11-20.md");
    expect([book.unreadable(), book.diagnostics(), book.totals().files]).toEqual([[], [], 1]);
  });

  it("tells a log that could not be read at a later look while keeping its record until it is looked at again", () => {
    const book = new LogBook();
    book.remember({ "memory/2026-11-20.md": { ...fingerprint, problems: [] } });
    book.told(unreadable);
    expect([book.record("memory/2026-11-20.md")?.crc32, book.diagnostics(), book.unreadable()]).toEqual([
      "0000abcd",
      [unreadable],
      [],
    ]);
  });
});
