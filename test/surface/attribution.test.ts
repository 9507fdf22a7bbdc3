import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAIMS_FILE } from "../../plugin/search/claims.ts";
import { localTime } from "../../plugin/snapshot/time.ts";
import { cli } from "./cli-harness.ts";
import { createDriver, type Driver, SESSION } from "./plugin-driver.ts";

const drivers: Driver[] = [];
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.dispose();
});

const today = () => localTime(new Date()).date;

/** A session that works, then a flush run whose model appends `block(prompt)` to today's log, then compaction. */
async function flushWith(
  block: (prompt: string, id: string) => string,
): Promise<{ d: Driver; id: string; log: string; prompt: string }> {
  const d = createDriver({});
  drivers.push(d);
  await d.userTurn("Fix ERR_DUPLICATE_KEY on second login in src/auth/oauth-callback.ts");
  await d.tool("read", { path: "src/auth/oauth-callback.ts" });
  await d.restart();
  const [flush] = await d.fire(
    "before_prompt_build",
    // The flush run works on a view of the session's conversation: that is how its session is known.
    {
      prompt: "Pre-compaction memory flush. Store durable memories now.",
      messages: [
        { role: "user", content: "Fix ERR_DUPLICATE_KEY on second login in src/auth/oauth-callback.ts" },
      ],
    },
    { trigger: "memory", sessionKey: "agent:main:internal-session-effects:abc123" },
  );
  const prompt = (flush as { prependContext: string }).prependContext;
  const id = /snapshot-id: (\d{4}-\d{2}-\d{2}-\d{2,})/.exec(prompt)?.[1] ?? "";
  mkdirSync(join(d.workspace, "memory"), { recursive: true });
  const log = join(d.workspace, "memory", `${today()}.md`);
  appendFileSync(log, block(prompt, id));
  await d.restart();
  await d.fire("before_compaction", { messageCount: 12 });
  await d.fire("after_compaction", { messageCount: 3, compactedCount: 9 });
  return { d, id, log, prompt };
}

const body = (id: string, meta: string[]) =>
  [
    "",
    "## Task Snapshot -- 10:00",
    "",
    "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
    `<!-- timestamp: ${today()}T10:00:00 -->`,
    `<!-- snapshot-id: ${id} -->`,
    ...meta,
    "",
    "### [SNAPSHOT] Active Goal",
    "Stop ERR_DUPLICATE_KEY on second login",
    "",
    "### [SNAPSHOT] Next Steps",
    "1. Add the unique index",
    "",
    "<!-- /BIG-MEMORY-SNAPSHOT -->",
    "",
  ].join("\n");

/** What every scoped view says about `id` for the real session. */
async function views(dir: string) {
  const list = (await cli(["list", "--session", SESSION, "--dir", dir, "--json"])).json() as {
    snapshots: { id: string; session: string; trigger: string }[];
  };
  const search = (
    await cli(["search", "ERR_DUPLICATE_KEY", "--session", SESSION, "--dir", dir, "--json"])
  ).json() as {
    snapshots: { id: string }[];
  };
  const recall = (await cli(["recall", "--session", SESSION, "--dir", dir, "--json"])).json() as {
    snapshot: { id: string } | null;
  };
  const status = (await cli(["status", "--dir", dir, "--json"])).json() as {
    sessions: { session: string; snapshots: number }[];
  };
  return {
    list: list.snapshots.map((s) => [s.id, s.session, s.trigger]),
    search: search.snapshots.map((s) => s.id),
    recall: recall.snapshot?.id,
    status: status.sessions.find((s) => s.session === SESSION)?.snapshots,
    stray: status.sessions.filter((s) => s.session !== SESSION).map((s) => s.session),
    verify: (await cli(["verify", "--dir", dir])).code,
  };
}

describe("attribution of the block a model writes in the flush", () => {
  it("gives the flush prompt the exact session, agent and trigger lines to copy", async () => {
    const { prompt } = await flushWith(() => "");
    expect(prompt).toContain(`<!-- session: ${SESSION} -->\n<!-- agent: main -->\n<!-- trigger: flush -->`);
    expect(prompt).toContain("copy the session, agent and trigger lines exactly as given");
  });

  it("shows a block written without session lines under its session everywhere, by a claim, the block untouched", async () => {
    const { d, id, log } = await flushWith((_prompt, id) => body(id, []));
    const written = readFileSync(log, "utf8");
    expect(written).not.toContain("<!-- session:");
    expect(await views(d.workspace)).toEqual({
      list: [[id, SESSION, "flush"]],
      search: [id],
      recall: id,
      status: 1,
      stray: [],
      verify: 0,
    });
    expect(readFileSync(log, "utf8")).toBe(written);
    expect(readFileSync(join(d.workspace, CLAIMS_FILE), "utf8").trim().split("\n")).toHaveLength(1);
  });

  it("shows a block written with the lines copied from the prompt under its session, with no claim needed", async () => {
    const { d, id } = await flushWith((prompt, id) => {
      const meta = prompt.split("\n").filter((l) => /^<!-- (session|agent|trigger): /.test(l));
      return body(id, meta);
    });
    expect(existsSync(join(d.workspace, CLAIMS_FILE))).toBe(false);
    expect(await views(d.workspace)).toEqual({
      list: [[id, SESSION, "flush"]],
      search: [id],
      recall: id,
      status: 1,
      stray: [],
      verify: 0,
    });
  });

  it("corrects a block that names another session, by a claim", async () => {
    const { d, id } = await flushWith((_prompt, id) =>
      body(id, ["<!-- session: agent:main:internal-session-effects:abc123 -->", "<!-- trigger: flush -->"]),
    );
    expect((await views(d.workspace)).list).toEqual([[id, SESSION, "flush"]]);
  });
});
