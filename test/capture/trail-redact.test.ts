import { describe, expect, it } from "vitest";
import { redactEvent } from "../../plugin/capture/trail-redact.ts";

describe("redactEvent", () => {
  it("redacts every string of an event, nested parameters and results included", () => {
    const token = `ghp_${"Ev3n".repeat(9)}`;
    const event = redactEvent({
      type: "tool",
      tool: "exec",
      params: { command: `gh auth login --with-token ${token}`, env: { GH_TOKEN: token } },
      result: { content: [{ type: "text", text: `logged in with ${token}` }] },
      at: "2026-11-22T10:00:00.000Z",
    });
    expect(JSON.stringify(event)).not.toContain(token);
    expect(JSON.stringify(event)).toContain("[REDACTED:github-token]");
  });

  it("keeps the head and the tail of a string longer than it scans, and the secret at its end is redacted", () => {
    const token = `ghp_${"T4il".repeat(9)}`;
    const text = `${"a".repeat(30_000)}MIDDLE${"b".repeat(30_000)} ${token}`;
    const event = redactEvent({ type: "assistant", texts: [text], at: "t" });
    expect(event.type).toBe("assistant");
    const kept = event.type === "assistant" ? (event.texts[0] ?? "") : "";
    expect(kept).not.toContain("MIDDLE");
    expect(kept.startsWith("a".repeat(20_000))).toBe(true);
    expect(kept.endsWith("[REDACTED:github-token]")).toBe(true);
    expect(kept.length).toBeLessThan(41_000);
  });
});

describe("redactEvent with a budget", () => {
  it("fails closed past its budget: every text becomes the unchecked marker, nothing unjudged gets through", () => {
    const token = `ghp_${"Bu6t".repeat(9)}`;
    let t = 0;
    // A clock that moves 100 ms each time it is read: the budget of 50 ms is spent at once.
    const now = () => {
      t += 100;
      return t;
    };
    const event = redactEvent(
      { type: "assistant", texts: [`mysql -u root -p${token} `.repeat(50)], at: "t" },
      { ms: 50, now },
    );
    expect(JSON.stringify(event)).not.toContain(token);
    expect(event.type === "assistant" ? event.texts : []).toEqual(["[REDACTED:unchecked]"]);
  });

  it("redacts as without a budget when the budget holds", () => {
    const token = `ghp_${"Bu7t".repeat(9)}`;
    const event = redactEvent({ type: "ask", text: `use ${token}`, at: "t" }, { ms: 60_000, now: () => 0 });
    expect(event).toEqual({ type: "ask", text: "use [REDACTED:github-token]", at: "t" });
  });
});
