import { describe, expect, it } from "vitest";
import { progress } from "../../plugin/surface/cli-progress.ts";

describe("progress", () => {
  it("says nothing for a second, then one plain line a second when stderr is not a terminal", () => {
    let now = 0;
    const lines: string[] = [];
    const p = progress({ stderr: (t) => lines.push(t), terminal: false, clock: () => now });
    p.update("indexing");
    now = 1200;
    p.update("indexing memory/: 1 of 9 months");
    now = 1500;
    p.update("indexing memory/: 2 of 9 months");
    now = 2300;
    p.update("indexing memory/: 3 of 9 months");
    p.done();
    expect(lines).toEqual([
      "big-memory: indexing memory/: 1 of 9 months (1 s)\n",
      "big-memory: indexing memory/: 3 of 9 months (2 s)\n",
    ]);
  });
});
