import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { buildViewData, islandText } from "../../plugin/surface/view-model.ts";
import {
  COMPRESS_ABOVE,
  cspHash,
  islandElement,
  PAGE_SCRIPT,
  PAGE_STYLE,
  pagePolicy,
  renderPage,
} from "../../plugin/surface/view-page.ts";
import { located, snapshot } from "../builders.ts";
import { HOSTILE } from "./view-fixture.ts";

const hostileData = buildViewData({
  workspace: "/w</script><script>alert(1)</script>",
  generated: new Date("2026-11-26T00:00:00Z"),
  snapshots: Object.values(HOSTILE).map((text, i) =>
    located(
      snapshot(`2026-11-25-0${i + 1}`, {
        goal: text,
        session: text,
        files: [{ path: text, note: text }],
        blockers: [text],
        code: text,
      }),
      1 + i * 40,
    ),
  ),
  diagnostics: [],
  ledger: [],
  restores: [],
  problems: [HOSTILE.closing],
});

describe("renderPage", () => {
  const page = renderPage(hostileData);

  it("has exactly its own two script elements and its own style, whatever the snapshots say", () => {
    expect(page.match(/<script\b/gi)).toHaveLength(2);
    expect(page.match(/<\/script/gi)).toHaveLength(2);
    expect(page.match(/<style\b/gi)).toHaveLength(1);
    expect(page).not.toMatch(/<img|<svg|<a\b|<iframe|<meta http-equiv="?refresh/i);
    expect(page).toContain('<script type="application/json" id="bm-data">');
  });

  it("carries the data island that parses back to the data", () => {
    const island = /<script type="application\/json" id="bm-data">([^<]*)<\/script>/.exec(page)?.[1];
    expect(JSON.parse(island ?? "")).toEqual(hostileData);
  });

  it("admits its script and style by their hashes and nothing else", () => {
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page)?.[1] ?? "";
    expect(policy).toBe(pagePolicy());
    expect(policy).toContain(`script-src ${cspHash(PAGE_SCRIPT)};`);
    expect(policy).toContain(`style-src ${cspHash(PAGE_STYLE)};`);
    expect(policy).toMatch(/^default-src 'none'; /);
    expect(policy).toContain("connect-src 'none'");
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|https?:|data:|\*/);
    expect(page).toContain(`<script>${PAGE_SCRIPT}</script>`);
    expect(page).toContain(`<style>${PAGE_STYLE}</style>`);
  });

  it("has no inline event handler or style attribute a policy by hash would refuse", () => {
    const markup = page
      .replace(/<script[^>]*>[\s\S]*?<\/script>/g, "")
      .replace(/<style>[\s\S]*?<\/style>/, "");
    expect(markup).toContain('<section id="bm-detail"');
    expect(markup).not.toMatch(/\son[a-z]+=|\sstyle=/i);
  });
});

describe("islandElement", () => {
  it("writes JSON as it is up to the limit, and gzip in base64 past it, holding the same JSON", () => {
    expect(islandElement(hostileData)).toBe(
      `<script type="application/json" id="bm-data">${islandText(hostileData)}</script>`,
    );
    expect(islandText(hostileData).length).toBeLessThan(COMPRESS_ABOVE);
    const packed = islandElement(hostileData, 0);
    const m =
      /^<script type="application\/octet-stream" id="bm-data" data-encoding="gzip-base64">([A-Za-z0-9+/=]+)<\/script>$/.exec(
        packed,
      );
    expect(gunzipSync(Buffer.from(m?.[1] ?? "", "base64")).toString("utf8")).toBe(islandText(hostileData));
  });
});

describe("cspHash", () => {
  it("is the base64 SHA-256 of the UTF-8 text, quoted as a CSP source", () => {
    expect(cspHash("")).toBe("'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='");
  });
});

describe("PAGE_SCRIPT", () => {
  it("is valid script, strict, in one function scope", () => {
    expect(() => new Function(PAGE_SCRIPT)).not.toThrow();
    expect(PAGE_SCRIPT.startsWith('(function () {\n"use strict";')).toBe(true);
  });
});
