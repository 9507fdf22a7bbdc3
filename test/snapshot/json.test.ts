import { describe, expect, it } from "vitest";
import { refJson, snapshotJson } from "../../plugin/snapshot/json.ts";
import { located, snapshot } from "../builders.ts";

/** Every section but the goal, none of them empty. */
const sections = {
  state: { phase: "debugging", branch: "fix/login", blocked: "no", progress: "" },
  files: [{ path: "src/login.ts", note: "the race" }],
  decisions: [{ text: "retry once", rationale: "" }],
  code: "throw new Error()",
  names: [{ label: "Error", value: "ERR_LOGIN" }],
  blockers: ["access to prod"],
  next: ["write the test"],
  extra: [{ heading: "Notes", body: "x" }],
};
const full = located(
  snapshot("2026-11-22-03", {
    name: "auth-fix",
    parent: "auth-spike",
    goal: "fix the login",
    tombstone: true,
    ...sections,
  }),
  40,
  { verified: null, checksum: "sha256:00" },
);

describe("refJson", () => {
  it("names the snapshot and where it is, with its verification", () => {
    expect(refJson(full)).toEqual({
      id: "2026-11-22-03",
      timestamp: "2026-11-22T10:00:00+00:00",
      file: "memory/2026-11-22.md",
      line: 40,
      session: "agent:main:main",
      agent: "main",
      trigger: "manual",
      name: "auth-fix",
      goal: "fix the login",
      verified: null,
    });
  });

  it("keeps absent metadata as null", () => {
    const ref = refJson(located(snapshot("2026-11-22-01", { session: null, agent: null, trigger: null })));
    expect([ref.session, ref.agent, ref.trigger, ref.name]).toEqual([null, null, null, null]);
  });
});

describe("snapshotJson", () => {
  it("adds every section and the parent to the reference, and leaves out the checksum and tombstone", () => {
    expect(snapshotJson(full)).toEqual({ ...refJson(full), ...sections, parent: "auth-spike" });
    expect(Object.keys(snapshotJson(full))).not.toContain("checksum");
    expect(Object.keys(snapshotJson(full))).not.toContain("tombstone");
  });
});
