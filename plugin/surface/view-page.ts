/**
 * The memory timeline as one HTML page: a fixed skeleton, one style sheet, one script, and the data as one
 * JSON island (view-model.ts). Nothing is fetched: the page works from `file://` and inside the Control
 * UI's sandboxed frame alike. Its Content Security Policy admits the page's own script and style by their
 * SHA-256 hashes and nothing else (no other script, no inline handler, no remote anything, no request).
 * The data is never parsed as HTML: the island's text escapes `<`, `>` and `&` (view-model.ts `islandText`)
 * and the script inserts every value as text.
 */
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { islandText, type ViewData } from "./view-model.ts";
import { VIEW_SCRIPT_CORE } from "./view-script.ts";
import { VIEW_SCRIPT_DETAIL, VIEW_SCRIPT_SEARCH } from "./view-script-detail.ts";

/**
 * How the page reads its island: JSON as it is, or (for a long history) gzip in base64, inflated by the
 * browser's own DecompressionStream (no request: a Blob's stream, read by a Response).
 */
const LOADER = `
function loadData(done) {
  var el = document.getElementById("bm-data");
  try {
    if (el.dataset.encoding !== "gzip-base64") { done(JSON.parse(el.textContent)); return; }
    var bin = atob(el.textContent.trim()), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text()
      .then(function (text) { done(JSON.parse(text)); }, function () { done(null); });
  } catch (e) { done(null); }
}
`;

/** The page's one script: the loader, then its parts in one function scope that gets the data `D`, strict. */
export const PAGE_SCRIPT = `(function () {\n"use strict";\n${LOADER}\nloadData(function (D) {\nperformance.mark("bm-data");\n${VIEW_SCRIPT_CORE}\n${VIEW_SCRIPT_SEARCH}\n${VIEW_SCRIPT_DETAIL}\n});\n})();\n`;

/** Islands longer than this (in UTF-16 code units) are written compressed (gzip, base64). */
export const COMPRESS_ABOVE = 2_000_000;

/** The data island's element: plain JSON, or gzip in base64 past `compressAbove`. */
export function islandElement(data: ViewData, compressAbove = COMPRESS_ABOVE): string {
  const json = islandText(data);
  if (json.length <= compressAbove) return `<script type="application/json" id="bm-data">${json}</script>`;
  const packed = gzipSync(Buffer.from(json, "utf8")).toString("base64");
  return `<script type="application/octet-stream" id="bm-data" data-encoding="gzip-base64">${packed}</script>`;
}

/** The page's one style sheet. */
export const PAGE_STYLE = `
:root { color-scheme: light dark; --fg: #111827; --bg: #ffffff; --mut: #6b7280; --line: #e5e7eb; --pane: #f9fafb;
  --gap: #dc2626; --ok: #059669; --snap: #2563eb; --rest: #7c3aed; --focus: #f59e0b; }
@media (prefers-color-scheme: dark) { :root { --fg: #e5e7eb; --bg: #111827; --mut: #9ca3af; --line: #374151; --pane: #1f2937; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header, #bm-filters, #bm-paging, #bm-lanes-wrap, main, #bm-tokens, #bm-problems, #bm-status { padding: 0 16px; }
h1 { font-size: 20px; margin: 12px 0 4px; } h2 { font-size: 16px; margin: 12px 0 6px; } h3 { font-size: 13px; margin: 10px 0 4px; color: var(--mut); text-transform: uppercase; letter-spacing: .04em; }
#bm-meta { margin: 0 0 8px; color: var(--mut); }
#bm-filters { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: end; padding-bottom: 8px; border-bottom: 1px solid var(--line); }
#bm-filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--mut); }
#bm-filters input, #bm-filters select, button { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 3px 6px; }
#f-search { min-width: 16em; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 1px; }
#bm-status { display: flex; gap: 16px; color: var(--mut); min-height: 1.6em; margin: 6px 0; }
#bm-search-result.absent { color: var(--gap); font-weight: 600; } #bm-search-result.found { color: var(--ok); }
#bm-axis { position: relative; height: 18px; margin-left: 320px; font-size: 11px; color: var(--mut); }
#bm-axis .tick { position: absolute; transform: translateX(-50%); white-space: nowrap; }
#bm-axis .tick:first-child { transform: none; } #bm-axis .tick:last-child { transform: translateX(-100%); }
#bm-lanes { max-height: 240px; overflow-y: auto; border: 1px solid var(--line); border-radius: 4px; }
#bm-lane-spacer { position: relative; }
.lane { position: absolute; left: 0; right: 0; height: 46px; display: flex; align-items: center; border-bottom: 1px solid var(--line); }
.lane-name { width: 320px; height: 45px; flex: none; text-align: left; border: 0; border-radius: 0; display: flex; flex-direction: column; overflow: hidden; }
.lane-name[aria-pressed="true"] { background: var(--pane); font-weight: 600; }
.lane-key, .lane-counts { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; } .lane-counts { font-size: 11px; color: var(--mut); }
.track { flex: 1; height: 22px; min-width: 0; }
.gap-text { color: var(--gap); font-weight: 600; }
main { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; margin-top: 8px; }
#bm-list { position: relative; height: 60vh; min-height: 300px; overflow-y: auto; border: 1px solid var(--line); border-radius: 4px; }
#bm-spacer { position: relative; }
.row { position: absolute; left: 0; right: 0; height: 30px; display: flex; gap: 8px; align-items: center; padding: 0 8px; border-bottom: 1px solid var(--line); white-space: nowrap; overflow: hidden; cursor: pointer; }
.row span { overflow: hidden; text-overflow: ellipsis; } .row .when { flex: none; color: var(--mut); font-variant-numeric: tabular-nums; }
.row .badge { flex: none; width: 12em; font-size: 11px; padding: 1px 6px; border-radius: 8px; background: var(--pane); }
.row .lane-of { flex: none; width: 12em; color: var(--mut); font-size: 12px; } .row .what { flex: 1; }
.row.k-s .badge { color: var(--snap); } .row.k-r .badge { color: var(--rest); } .row.k-c .badge { color: var(--ok); }
.row.gap { background: color-mix(in srgb, var(--gap) 12%, transparent); } .row.gap .badge, .row.gap .what { color: var(--gap); font-weight: 600; }
.row.active { outline: 2px solid var(--snap); outline-offset: -2px; }
#bm-list:focus-visible .row.active { outline-color: var(--focus); }
#bm-detail { height: 60vh; min-height: 300px; overflow-y: auto; border: 1px solid var(--line); border-radius: 4px; padding: 0 12px 12px; background: var(--pane); }
#bm-detail * { overflow-wrap: anywhere; }
.fields { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0; } .fields dt { color: var(--mut); } .fields dd { margin: 0; white-space: pre-wrap; }
.part ul { margin: 0; padding-left: 18px; } .none { color: var(--mut); margin: 0; } .note { color: var(--mut); }
pre { white-space: pre-wrap; margin: 0; font: 12px/1.4 ui-monospace, monospace; } .goal { margin: 0; white-space: pre-wrap; }
.diff li { list-style: none; margin-left: -18px; } .diff-label { font-weight: 600; }
.diff-fail, .diff-del { color: var(--gap); } .diff-ok, .diff-add { color: var(--ok); } .diff-goal { color: var(--rest); }
.problem { color: var(--gap); }
.totals { border-collapse: collapse; margin: 0 16px 12px 0; display: inline-table; vertical-align: top; }
.totals caption { text-align: left; font-weight: 600; } .totals th, .totals td { border-bottom: 1px solid var(--line); padding: 2px 10px 2px 0; text-align: left; } .num { text-align: right; font-variant-numeric: tabular-nums; }
#bm-paging a { color: var(--snap); }
`;

/** `'sha256-...'` of a script or style text, as a CSP source. */
export function cspHash(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/**
 * The page's Content Security Policy: nothing by default, the page's own script and style by hash, no base,
 * no form, no plugin. (`frame-ancestors` is not valid in a meta element: the route sends it as a header.)
 */
export function pagePolicy(): string {
  return [
    "default-src 'none'",
    `script-src ${cspHash(PAGE_SCRIPT)}`,
    `style-src ${cspHash(PAGE_STYLE)}`,
    "img-src 'none'",
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ].join("; ");
}

/** The whole page for `data` (its island compressed past `compressAbove` code units of JSON). */
export function renderPage(data: ViewData, compressAbove = COMPRESS_ABOVE): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${pagePolicy()}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>big-memory: memory timeline</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header><h1>Memory timeline</h1><p id="bm-meta">Reading the history…</p></header>
<nav id="bm-paging" aria-label="Pages"></nav>
<section id="bm-filters" aria-label="Filters">
<label for="f-agent">Agent<select id="f-agent"></select></label>
<label for="f-session">Session<select id="f-session"></select></label>
<label for="f-trigger">Trigger<select id="f-trigger"></select></label>
<label for="f-name">Checkpoint<select id="f-name"></select></label>
<label for="f-from">From<input type="date" id="f-from"></label>
<label for="f-to">To<input type="date" id="f-to"></label>
<label for="f-kind">Show<select id="f-kind"><option value="all">everything</option><option value="snapshots">snapshots</option><option value="compactions">compactions and resets</option><option value="gaps">compactions with no capture</option><option value="restores">restores</option></select></label>
<label for="f-search">Search the snapshots<input type="search" id="f-search" placeholder="an identifier, a file, an error" autocomplete="off" spellcheck="false"></label>
<button type="button" id="f-clear">Clear filters</button>
</section>
<div id="bm-status"><span id="bm-count" role="status"></span><span id="bm-search-result" role="status" aria-live="polite"></span></div>
<div id="bm-lanes-wrap"><div id="bm-axis" aria-hidden="true"></div><section id="bm-lanes" aria-label="Sessions"><div id="bm-lane-spacer"></div></section></div>
<main>
<div id="bm-list" role="listbox" tabindex="0" aria-label="Snapshots, compactions and restores, newest first"><div id="bm-spacer"></div></div>
<section id="bm-detail" tabindex="0" aria-label="The selected entry"></section>
</main>
<section id="bm-tokens" aria-label="Tokens injected"></section>
<section id="bm-problems" aria-label="Problems"></section>
${islandElement(data, compressAbove)}
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
