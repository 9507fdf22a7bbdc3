import { describe, expect, it } from "vitest";
import { VIEW_SCRIPT_CORE } from "../../plugin/surface/view-script.ts";
import { VIEW_SCRIPT_DETAIL } from "../../plugin/surface/view-script-detail.ts";

/**
 * The rule the page's script keeps, read in its text: data goes in as text. (What it draws is checked in
 * a real browser by test/e2e/view.test.ts.)
 */
const PARTS = { VIEW_SCRIPT_CORE, VIEW_SCRIPT_DETAIL };

describe("VIEW_SCRIPT_CORE and VIEW_SCRIPT_DETAIL", () => {
  for (const [name, text] of Object.entries(PARTS)) {
    it(`${name} never parses markup, evaluates text or loads anything`, () => {
      expect(text).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setTimeout\(\s*["'`]|DOMParser|createContextualFragment|srcdoc/,
      );
      expect(text).not.toMatch(
        /\bfetch\(|XMLHttpRequest|WebSocket|EventSource|sendBeacon|import\(|\.src\s*=|window\.open|location\s*=/,
      );
    });

    it(`${name} sets no attribute from data but its own ids, classes, roles and data- fields`, () => {
      const attributes = [...text.matchAll(/setAttribute\(\s*"([^"]+)"/g)].map((m) => m[1]);
      expect(new Set(attributes)).toEqual(
        new Set(
          attributes.filter((a) =>
            ["aria-pressed", "aria-hidden", "role", "aria-selected", "aria-activedescendant"].includes(
              a ?? "",
            ),
          ),
        ),
      );
    });
  }

  it("only the paging links get an href, and only from a query string of the page's own shape", () => {
    const hrefs = [...(VIEW_SCRIPT_CORE + VIEW_SCRIPT_DETAIL).matchAll(/\.href\s*=/g)];
    expect(hrefs).toHaveLength(1);
    expect(VIEW_SCRIPT_CORE).toContain("!/^\\?[a-zA-Z0-9=&%._-]*$/.test(q)");
  });

  it("refuses data of another version", () => {
    expect(VIEW_SCRIPT_CORE).toContain("if (!D || D.v !== 1) {");
  });
});
