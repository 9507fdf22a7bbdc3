import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  appendClaim,
  CLAIMS_FILE,
  claimEntries,
  claimed,
  danglingClaims,
  readClaims,
} from "../../plugin/search/claims.ts";
import { entryOf } from "../../plugin/search/document.ts";
import { located, snap, tempWorkspace } from "./helpers.ts";

const block = located(snap("2026-11-20-01", { session: null, agent: null, trigger: null }), 3);
const claim = {
  at: "2026-11-20T10:00:00Z",
  file: block.file,
  line: 3,
  id: "2026-11-20-01",
  session: "agent:main:main",
  agent: "main",
};

describe("readClaims and appendClaim", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  beforeEach(async () => {
    ws = await tempWorkspace();
  });
  afterEach(() => ws.cleanup());

  it("reads nothing from a workspace without claims", async () => {
    expect(await readClaims(ws.dir)).toEqual({ claims: new Map(), problems: [] });
  });

  it("round-trips a claim, and names a line that is not one", async () => {
    const full = await appendClaim(ws.dir, claim);
    expect(full).toEqual({ v: 1, ...claim, trigger: "flush" });
    const path = join(ws.dir, CLAIMS_FILE);
    await writeFile(path, `${await readFile(path, "utf8")}{"v":1}\nnot json\n`);
    const read = await readClaims(ws.dir);
    expect([...new Set(read.claims.values())]).toEqual([full]);
    expect(read.problems.map((p) => [p.file, p.line])).toEqual([
      [CLAIMS_FILE, 2],
      [CLAIMS_FILE, 3],
    ]);
  });

  it("names a claims file that is not a regular file (a folder, a FIFO) and lays no claim over", async () => {
    await mkdir(join(ws.dir, CLAIMS_FILE), { recursive: true });
    expect(await readClaims(ws.dir)).toEqual({
      claims: new Map(),
      problems: [
        {
          file: CLAIMS_FILE,
          line: 0,
          message: `${CLAIMS_FILE} is not read: it is a folder, not a regular file; move it away (big-memory writes it again)`,
        },
      ],
    });
  });
});

describe("claimed and claimEntries", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let claims: Awaited<ReturnType<typeof readClaims>>["claims"];
  beforeEach(async () => {
    ws = await tempWorkspace();
    await appendClaim(ws.dir, claim);
    claims = (await readClaims(ws.dir)).claims;
  });
  afterEach(() => ws.cleanup());

  it("lay a claim over its block's session, agent and trigger, and leave other blocks alone", () => {
    expect(claimed(claims, block).snapshot).toMatchObject({
      session: "agent:main:main",
      agent: "main",
      trigger: "flush",
    });
    const other = located(snap("2026-11-20-02", { session: null, agent: null, trigger: null }), 9);
    expect(claimed(claims, other)).toBe(other);
    const elsewhere = { ...block, file: "memory/2026-11-21.md" };
    expect(claimed(claims, elsewhere)).toBe(elsewhere);
    const entries = [entryOf(block), entryOf(other)];
    claimEntries(claims, entries);
    expect(entries.map((e) => e.session)).toEqual(["agent:main:main", null]);
  });

  it("follow their block when lines above it were added or removed, by its id in its file", () => {
    const moved = { ...block, line: 4 };
    expect(claimed(claims, moved).snapshot.session).toBe("agent:main:main");
    const stranger = located(snap("2026-11-20-07", { session: null, agent: null, trigger: null }), 3);
    expect(claimed(claims, stranger)).toBe(stranger);
  });

  it("name a claim whose block is gone from its file, not one whose block moved", () => {
    expect(danglingClaims(claims, [block])).toEqual([]);
    expect(danglingClaims(claims, [{ ...block, line: 12 }])).toEqual([]);
    expect(danglingClaims(claims, [])).toMatchObject([{ file: block.file, line: 3, id: "2026-11-20-01" }]);
  });
});
