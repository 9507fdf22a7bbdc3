import { closeSync, openSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeShard, encodeShard, FIXED_V5 } from "../../plugin/search/codec.ts";
import { buildFrozen, type FrozenShard } from "../../plugin/search/frozen-shard.ts";
import { shardPath } from "../../plugin/search/persist.ts";
import { openSavedMonth } from "../../plugin/search/saved-month.ts";
import { SavedRows } from "../../plugin/search/saved-rows.ts";
import { TextCache } from "../../plugin/search/saved-texts.ts";
import { SearchService } from "../../plugin/search/search-service.ts";
import { located, lookupsOf, recordingLogger, snap, tempWorkspace, writeLog } from "./helpers.ts";

const FILES = { "memory/2026-11-20.md": { size: 1, mtimeMs: 2, crc32: "00c0ffee" } };
const align = (n: number) => (n + 7) & ~7;

/** Where a section of a version 5 file lies, in bytes from the file's start. */
function sectionOf(data: Buffer, name: string): { offset: number; length: number } {
  const metaLength = data.readUInt32LE(20);
  const meta = JSON.parse(`${data.toString("utf8", FIXED_V5, FIXED_V5 + metaLength - 12)}}`);
  const s = meta.sections[name];
  return { offset: align(FIXED_V5 + data.readUInt32LE(8)) + s.offset, length: s.length };
}

/** The same file as version 4 wrote it: the header and body as they are, after a 20-byte prefix. */
function asVersion4(data: Buffer): Buffer {
  const headerLength = data.readUInt32LE(8);
  const header = data.subarray(FIXED_V5, FIXED_V5 + headerLength);
  const body = data.subarray(align(FIXED_V5 + headerLength));
  const out = Buffer.alloc(align(20 + headerLength) + body.length);
  out.writeUInt32LE(data.readUInt32LE(0), 0);
  out.writeUInt32LE(4, 4);
  out.writeUInt32LE(headerLength, 8);
  out.writeUInt32LE(crc32(header), 12);
  out.writeUInt32LE(crc32(body), 16);
  header.copy(out, 20);
  body.copy(out, align(20 + headerLength));
  return out;
}

const GOALS = [
  "Fix ERR_DUPLICATE_KEY in the upsert of src/billing/upsert.ts",
  "Write ADR-016 about retries",
  "Rotate the signing keys for the staging gateway",
  "Migrate billing to Stripe",
];

function sample(): FrozenShard {
  return buildFrozen(
    "2026-11",
    GOALS.map((goal, i) =>
      located(
        snap(`2026-11-2${i}-01`, {
          goal,
          session: `s${i % 2}`,
          next: [`Re-run the suite after step ${i}`],
          blockers: [`gateway timeout ${i} on staging`],
        }),
      ),
    ),
  );
}

describe("openSavedMonth", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let path: string;
  const fds: number[] = [];
  beforeEach(async () => {
    ws = await tempWorkspace();
    path = join(ws.dir, "2026-11.bmx");
  });
  afterEach(async () => {
    for (const fd of fds.splice(0)) {
      try {
        closeSync(fd);
      } catch {
        // closed by its shard
      }
    }
    await ws.cleanup();
  });
  const open = async (data: Buffer) => {
    await writeFile(path, data);
    const fd = openSync(path, "r");
    fds.push(fd);
    return openSavedMonth(fd, new TextCache());
  };

  it("makes a month searchable from its lean part: the same answers as the file read whole, no row read until asked", async () => {
    const data = encodeShard(sample(), FILES);
    const whole = decodeShard(data).shard;
    const file = await open(data);
    const lazy = file?.shard;
    expect(whole.entry(1)?.text).toContain("gateway timeout 2");
    expect(file?.files).toEqual(FILES);
    expect(file?.version).toBe(5);
    const rows = lazy?.parts.rows;
    expect(rows).toBeInstanceOf(SavedRows);
    expect(rows instanceof SavedRows && rows.read).toBe(0);
    for (const query of ["err_duplicate_key", "adr-016", "sign", "stripe", "billing", "gatewy"]) {
      for (const lookup of lookupsOf(query, true)) expect(lazy?.reach(lookup)).toEqual(whole.reach(lookup));
      expect(lazy?.exactCount(query, 10)).toBe(whole.exactCount(query, 10));
      expect(lazy?.holding(query, [0, 1, 2, 3])).toEqual(whole.holding(query, [0, 1, 2, 3]));
    }
    expect(rows instanceof SavedRows && rows.read).toBe(0);
    const second = lazy?.entry(1);
    expect(rows instanceof SavedRows && rows.read).toBe(1);
    expect(lazy?.entry(1)).toBe(second);
    expect(second && { id: second.id, goal: second.goal, text: second.text }).toEqual({
      id: whole.entry(1)?.id,
      goal: whole.entry(1)?.goal,
      text: whole.entry(1)?.text,
    });
    expect(lazy?.entry(4)).toBeUndefined();
    expect([...(lazy?.documents() ?? [])].map(([doc, e]) => [doc, e.id, e.session])).toEqual(
      [...whole.documents()].map(([doc, e]) => [doc, e.id, e.session]),
    );
    expect(lazy?.verify()).toBeUndefined();
    expect(lazy?.whole().entries.map((e) => e.text)).toEqual(whole.parts.entries.map((e) => e.text));
    lazy?.close();
  });

  it("leaves a file of an older version to be read whole", async () => {
    const data = asVersion4(encodeShard(sample(), FILES));
    expect(await open(data)).toBeUndefined();
    expect(decodeShard(data).version).toBe(4);
    expect(decodeShard(data).shard.parts.entries.map((e) => e.id)).toEqual(
      decodeShard(encodeShard(sample(), FILES)).shard.parts.entries.map((e) => e.id),
    );
  });

  it("refuses a meta or lean part that does not match its checksum, and a file cut short", async () => {
    const data = encodeShard(sample(), FILES);
    const meta = Buffer.from(data);
    meta[FIXED_V5 + 3] = (meta[FIXED_V5 + 3] ?? 0) ^ 0x01;
    await expect(open(meta)).rejects.toThrow("checksum mismatch (file is corrupt or truncated)");
    const lean = Buffer.from(data);
    const at = sectionOf(data, "fieldLength").offset;
    lean[at] = (lean[at] ?? 0) ^ 0x01;
    await expect(open(lean)).rejects.toThrow("checksum mismatch (file is corrupt or truncated)");
    await expect(open(data.subarray(0, 24))).rejects.toThrow("file is truncated (24 bytes)");
    await expect(open(data.subarray(0, sectionOf(data, "postings").offset))).rejects.toThrow(
      "a section runs past the end of the file",
    );
  });

  it("throws on a corrupt postings list read before the file is verified, and verify names the mismatch", async () => {
    const data = encodeShard(sample(), FILES);
    const postings = sectionOf(data, "postings");
    const corrupt = Buffer.from(data);
    // Every list's first byte a document gap of 127: a snapshot the month does not hold.
    const whole = decodeShard(data).shard;
    for (const start of whole.parts.termStart.subarray(0, -1)) corrupt[postings.offset + start] = 0x7f;
    const file = await open(corrupt);
    const shard = file?.shard;
    expect(() => shard?.holding("stripe", [0, 1, 2, 3])).toThrow(
      "big-memory: a search index file is corrupt (a posting names a missing snapshot)",
    );
    expect(shard?.verify()).toBe("checksum mismatch (file is corrupt or truncated)");
    expect(() => shard?.whole()).toThrow("checksum mismatch");
    shard?.close();
  });

  it("throws on a ref row that cannot be read, naming it", async () => {
    const data = encodeShard(sample(), FILES);
    const corrupt = Buffer.from(data);
    const rows = FIXED_V5 + data.readUInt32LE(20);
    corrupt[rows] = 0x7b; // "{" for "[": no longer a row
    const shard = (await open(corrupt))?.shard;
    expect(shard?.entry(1)?.id).toBe("2026-11-22-01");
    expect(() => shard?.entry(0)).toThrow(
      "big-memory: a search index file is corrupt (snapshot ref row 0 cannot be read)",
    );
    shard?.close();
  });
});

describe("SearchService over months loaded from their lean part", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  beforeEach(async () => {
    ws = await tempWorkspace();
    await writeLog(ws.dir, "2026-10-30", [snap("2026-10-30-01", { goal: "Migrate billing to Stripe" })]);
    await writeLog(ws.dir, "2026-11-20", [
      snap("2026-11-20-01", { goal: "Fix ERR_DUPLICATE_KEY in the upsert", session: "s1" }),
    ]);
  });
  afterEach(() => ws.cleanup());

  const start = async () => {
    const logger = recordingLogger();
    const service = await SearchService.open(ws.dir, { logger, watch: false, saveDelayMs: 10 });
    return { service, logger };
  };

  it("rebuilds a month whose body fails its checksum once every month is searchable, with one warning", async () => {
    const first = await start();
    await first.service.ready();
    await first.service.close();
    const path = shardPath(first.service.indexDir, "2026-10");
    const data = await readFile(path);
    const postings = sectionOf(data, "postings");
    expect(postings.length).toBeGreaterThan(1);
    data[postings.offset + 1] = (data[postings.offset + 1] ?? 0) ^ 0x01;
    await writeFile(path, data);
    await rm(`${path}.prev`, { force: true });
    const { service, logger } = await start();
    await service.searchable();
    await service.ready();
    expect(logger.warnings).toEqual([
      `big-memory: search index ${path}: checksum mismatch (file is corrupt or truncated); rebuilding from the daily logs`,
    ]);
    const hit = service.search("stripe").hits[0];
    expect([hit?.id, hit?.snippet.includes("Stripe")]).toEqual(["2026-10-30-01", true]);
    await service.close();
    const again = await start();
    await again.service.ready();
    expect(again.logger.warnings).toEqual([]);
    await again.service.close();
  });

  it("reads a file of the format before whole and writes it again in this one", async () => {
    const first = await start();
    await first.service.ready();
    await first.service.close();
    const path = shardPath(first.service.indexDir, "2026-10");
    await writeFile(path, asVersion4(await readFile(path)));
    const { service, logger } = await start();
    await service.ready();
    expect(service.search("stripe").hits[0]?.id).toBe("2026-10-30-01");
    await service.close();
    expect([(await readFile(path)).readUInt32LE(4), logger.warnings]).toEqual([5, []]);
  });
});
