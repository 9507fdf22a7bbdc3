import { describe, expect, it } from "vitest";
import {
  END_MARKER,
  headingKey,
  isTrigger,
  META_KEYS,
  SECTIONS,
  sectionOf,
  startMarker,
  TRIGGER_NAMES,
} from "../../plugin/snapshot/format.ts";
import { Trigger } from "../../plugin/snapshot/snapshot.ts";

describe("startMarker", () => {
  it("names the schema version in the start marker", () => {
    expect(startMarker(1)).toBe("<!-- BIG-MEMORY-SNAPSHOT v1 -->");
    expect(startMarker(2)).toBe("<!-- BIG-MEMORY-SNAPSHOT v2 -->");
  });

  it("pairs with the end marker", () => {
    expect(END_MARKER).toBe("<!-- /BIG-MEMORY-SNAPSHOT -->");
  });
});

describe("SECTIONS", () => {
  it("lists the eight sections in the order they are written", () => {
    expect(Object.values(SECTIONS)).toEqual([
      "Active Goal",
      "Current State",
      "Files In Play",
      "Decisions Made",
      "Code Context",
      "Key Names & Values",
      "Blockers & Open Questions",
      "Next Steps",
    ]);
  });
});

describe("META_KEYS", () => {
  it("ends with the checksum, which covers the keys before it", () => {
    expect(META_KEYS.at(-1)).toBe("checksum");
    expect(new Set(META_KEYS).size).toBe(META_KEYS.length);
  });
});

describe("headingKey", () => {
  it("trims, lower-cases and folds inner white space", () => {
    expect(headingKey("  Next \t  STEPS ")).toBe("next steps");
  });
});

describe("sectionOf", () => {
  it("finds every section by its written heading", () => {
    for (const [key, heading] of Object.entries(SECTIONS)) expect(sectionOf(heading)).toBe(key);
  });

  it("accepts the other spellings people use, in any case and spacing", () => {
    expect(
      ["Goal", "current goal", "KEY  NAMES", "key names and values", "Open Questions", "next"].map(sectionOf),
    ).toEqual(["goal", "goal", "names", "names", "blockers", "next"]);
  });

  it("returns undefined for a heading it does not know", () => {
    expect(sectionOf("Notes")).toBeUndefined();
    expect(sectionOf("Next Step")).toBeUndefined();
  });
});

describe("isTrigger", () => {
  it("accepts exactly the names the schema's trigger enum accepts", () => {
    for (const name of [...TRIGGER_NAMES, "Flush", "lunch", "", " manual", "manual ", "compaction\n"]) {
      expect(isTrigger(name), name).toBe(Trigger.safeParse(name).success);
    }
    expect(Trigger.options).toEqual([...TRIGGER_NAMES]);
  });
});
