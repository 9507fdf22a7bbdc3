/**
 * The memory timeline's script, second part: the selected entry (a snapshot rendered section by section
 * with its checksum state, problems and diff; a compaction; a restore), the search box, the injected
 * tokens per session and per day, the workspace's problems, and the first draw. It runs in the scope of
 * view-script.ts's part and follows the same rule: text is inserted as text, never as HTML.
 *
 * The search box follows the CLI's rule for identifiers (search/tokenize.ts): a word that holds `_ - . / :
 * \`, a digit or an inner capital is an identifier, and a hit must hold it as a name of its own (its parts
 * in order, joined by connectors no stronger than those around it); an identifier no snapshot holds is
 * "No snapshot mentions X.", never a near miss, unless it is the start of longer ones (cut inside a word
 * with two characters or more to go: `ERR_DUP`), which the snapshots holding those match by prefix, as in
 * the CLI. Other words match snapshots that contain them.
 */
/**
 * The search engine of the page: `search(query)` over the snapshots `S` gives `{ hits, missing, named,
 * prefixes }`: the indexes of the snapshots that match, the identifiers no snapshot holds, what a "No
 * snapshot mentions X." names, and the identifiers typed as a start with the words they begin. It reads nothing but `S`, so a test runs it as the page does.
 */
export const VIEW_SCRIPT_SEARCH = String.raw`
var IDCHAR = /[_\-./:\\\p{N}]/u;
var CAMEL = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{N})(?=\p{Lu}\p{Ll})/u;
var WORD = /(?:[\p{L}\p{N}\p{M}_\-./\\:@#$+~])+/gu;
var PIECES = /[\p{L}\p{N}\p{M}]+|[^\p{L}\p{N}\p{M}]+/gu;
var ALNUM = /[\p{L}\p{N}\p{M}]/u;
var CLASSES = { "/": 1, "\\": 1, ":": 1, "@": 2, "#": 2, ".": 3, "-": 4, "_": 5, "$": 5, "+": 5, "~": 5 };
function fold(t) { return /^[\x20-\x7e\t\n\r]*$/.test(t) ? t : t.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").normalize("NFC"); }
function humps(w) { var p = w.split(CAMEL); return p.length > 1 ? p : []; }
function joined(raw) {
  var leaves = [], seps = [], sep = 0;
  (fold(raw).match(PIECES) || []).forEach(function (piece) {
    if (!ALNUM.test(piece)) {
      sep = Math.min.apply(null, Array.from(piece).map(function (ch) { return CLASSES[ch] || 1; }));
      return;
    }
    var split = humps(piece);
    (split.length > 0 ? split : [piece]).forEach(function (leaf, i) {
      if (leaves.length > 0) seps.push(i === 0 ? sep : 6);
      leaves.push(leaf.toLowerCase());
    });
  });
  return { leaves: leaves, seps: seps };
}
function containsRun(hay, leaves) {
  function ends(sep, inner) { return sep === undefined || sep < inner || (sep === 1 && inner === 1); }
  outer: for (var i = 0; i + leaves.length <= hay.leaves.length; i++) {
    for (var j = 0; j < leaves.length; j++) if (hay.leaves[i + j] !== leaves[j]) continue outer;
    var last = i + leaves.length - 1;
    var first = leaves.length > 1 ? (hay.seps[i] === undefined ? 7 : hay.seps[i]) : 7;
    var end = leaves.length > 1 ? (hay.seps[last - 1] === undefined ? 7 : hay.seps[last - 1]) : 7;
    if (ends(i > 0 ? hay.seps[i - 1] : undefined, first) && ends(hay.seps[last], end)) return true;
  }
  return false;
}
function screenOf(leaves) {
  return new RegExp(leaves.map(function (t) { return t.replace(/[.*+?^$(){}|[\]\\]/g, "\\$&"); }).join("[^\\p{L}\\p{N}]*"), "iu");
}
var texts = [];
function textOf(i) {
  if (texts[i] === undefined) {
    var s = S[i];
    texts[i] = [s.i, s.n || "", s.goal, s.st.join("\n"), s.fi.map(function (f) { return f.join(" "); }).join("\n"),
      s.de.map(function (d) { return d.join(" "); }).join("\n"), s.co, s.na.map(function (n) { return n.join(" "); }).join("\n"),
      s.bl.join("\n"), s.nx.join("\n"), s.ex.map(function (x) { return x.join("\n"); }).join("\n")].join("\n");
  }
  return texts[i];
}
function holds(i, leaves, screen) {
  var text = textOf(i);
  if (!screen.test(text) && !screen.test(fold(text))) return false;
  var words = text.match(WORD) || [];
  for (var w = 0; w < words.length; w++) if (containsRun(joined(words[w]), leaves)) return true;
  return false;
}
function queryWordsOf(q) {
  return (q.match(WORD) || []).map(function (raw) { return raw.replace(/^[_\-./\\:@#$+~]+|[_\-./\\:@#$+~]+$/g, ""); })
    .filter(function (raw) { return raw !== ""; })
    .map(function (raw) { return { raw: raw, identifier: IDCHAR.test(raw) || humps(raw).length > 0, leaves: joined(raw).leaves }; });
}
function search(q) {
  var words = queryWordsOf(q);
  var ids = words.filter(function (w) { return w.identifier; });
  var plain = words.filter(function (w) { return !w.identifier; }).map(function (w) { return fold(w.raw).toLowerCase(); });
  var holders = ids.map(function (w) {
    var screen = screenOf(w.leaves), set = new Set();
    for (var i = 0; i < S.length; i++) if (holds(i, w.leaves, screen)) set.add(i);
    return set;
  });
  var missing = ids.filter(function (_, k) { return holders[k].size === 0; }).map(function (w) { return w.raw; });
  // Identifiers typed as the start of longer ones (the CLI's prefix match): the snapshots holding those.
  var prefixes = [];
  if (missing.length > 0) {
    var begun = ids.map(function (w, k) { return holders[k].size > 0 ? null : startsOf(w.raw); });
    if (begun.every(function (b) { return b === null || b.words.length > 0; })) {
      begun.forEach(function (b, k) {
        if (b === null) return;
        holders[k] = b.snapshots;
        prefixes.push({ raw: ids[k].raw, words: b.words });
      });
      missing = [];
    }
  }
  var hits = new Set();
  if (missing.length === 0) {
    for (var i = 0; i < S.length; i++) {
      if (!holders.every(function (set) { return set.has(i); })) continue;
      if (plain.length > 0 && ids.length === 0) {
        var low = fold(textOf(i)).toLowerCase();
        if (!plain.some(function (p) { return low.indexOf(p) >= 0; })) continue;
      }
      hits.add(i);
    }
  }
  var named = missing.length > 0 ? missing.join(", ")
    : ids.length > 1 ? ids.slice(0, -1).map(function (w) { return w.raw; }).join(", ") + " and " + ids[ids.length - 1].raw + " together"
    : q.trim();
  return { hits: hits, missing: missing, named: named, prefixes: prefixes };
}
var LETTER = /\p{L}/u, CONNECTOR = /[_\-./\\:@#$+~]/;
/**
 * The words of the page an identifier begins, cut inside a word with two characters or more to go
 * (ERR_DUP of ERR_DUPLICATE_KEY, oauth-call of src/auth/oauth-callback.ts from its own token on), as the
 * CLI's prefix match: at most five of them, and every snapshot holding one.
 */
function startsOf(raw) {
  var low = fold(raw).toLowerCase(), words = [], snapshots = new Set();
  if (!LETTER.test(low.slice(-1))) return { words: words, snapshots: snapshots };
  for (var i = 0; i < S.length; i++) {
    var found = textOf(i).match(WORD) || [];
    for (var k = 0; k < found.length; k++) {
      var word = found[k].replace(/^[_\-./\\:@#$+~]+|[_\-./\\:@#$+~]+$/g, ""), wl = fold(word).toLowerCase();
      for (var at = 0; at < wl.length; at++) {
        if (at > 0 && !CONNECTOR.test(wl.charAt(at - 1))) continue;
        if (wl.length - at < low.length + 2 || wl.lastIndexOf(low, at) !== at || !LETTER.test(wl.charAt(at + low.length))) continue;
        snapshots.add(i);
        if (words.length < 5 && words.indexOf(word.slice(at)) < 0) words.push(word.slice(at));
        break;
      }
    }
  }
  return { words: words, snapshots: snapshots };
}
`;

/** The second part proper: the selected entry, the search box, the totals, the first draw. */
export const VIEW_SCRIPT_DETAIL = String.raw`
var detail = $("bm-detail");
function section(title) { var s = h("section", "part"); add(s, h("h3", null, title)); return s; }
function items(title, values, render) {
  var s = section(title);
  if (values.length === 0) { add(s, h("p", "none", "none")); return s; }
  var ul = h("ul");
  values.forEach(function (v) { add(ul, add(h("li"), render(v))); });
  return add(s, ul);
}
function pair(a, b) { var f = document.createDocumentFragment(); add(f, h("span", "item", a)); if (b) add(f, h("span", "note", " \u2014 " + b)); return f; }
function fields(rows) {
  var dl = h("dl", "fields");
  rows.forEach(function (r) { if (r[1] !== null && r[1] !== undefined && r[1] !== "") add(dl, h("dt", null, r[0]), h("dd", null, r[1])); });
  return dl;
}
var CHECKSUM = { "true": "checksum holds (written by big-memory, unchanged)", "false": "modified after it was written (checksum does not hold)", "null": "no checksum (written by a model or a person)" };
function restoresOf(id) { return R.filter(function (r) { return r.sn === id; }); }
function diffPart(df) {
  var s = section("Changed since " + df.from);
  s.classList.add("diff");
  var ul = h("ul");
  function line(cls, label, text) { add(ul, add(h("li", cls), h("span", "diff-label", label + ": "), text)); }
  if (df.goal !== undefined) line("diff-goal", "goal changed", "was \u201c" + df.goal + "\u201d");
  (df.filesAdded || []).forEach(function (t) { line("diff-add", "file added", t); });
  (df.filesGone || []).forEach(function (t) { line("diff-del", "file gone", t); });
  (df.failuresNew || []).forEach(function (t) { line("diff-fail", "new failure or blocker", t); });
  (df.failuresResolved || []).forEach(function (t) { line("diff-ok", "resolved", t); });
  (df.decisionsAdded || []).forEach(function (t) { line("diff-add", "decision added", t); });
  (df.decisionsDropped || []).forEach(function (t) { line("diff-del", "decision reversed or dropped", t); });
  (df.nextDone || []).forEach(function (t) { line("diff-ok", "next step done", t); });
  (df.nextNew || []).forEach(function (t) { line("diff-add", "next step added", t); });
  return add(s, ul);
}
function showSnapshot(s) {
  add(detail, h("h2", null, "Snapshot " + s.i + (s.n ? " \u00b7 " + s.n : "")));
  add(detail, fields([["when", s.t], ["session", s.s], ["agent", s.a], ["trigger", s.g], ["checkpoint", s.n], ["where", s.f + ":" + s.l], ["checksum", CHECKSUM[String(s.v)]]]));
  if (s.dg) add(detail, items("Problems", s.dg, function (t) { return h("span", "problem", t); }));
  if (s.df) add(detail, diffPart(s.df));
  else add(detail, add(section("Changed since the previous snapshot"), h("p", "none", "the first snapshot of this session on the page")));
  add(detail, add(section("Active Goal"), h("p", "goal", s.goal || "none")));
  add(detail, add(section("Current State"), fields([["phase", s.st[0]], ["branch", s.st[1]], ["blocked", s.st[2]], ["progress", s.st[3]]])));
  add(detail, items("Files In Play", s.fi, function (f) { return pair(f[0], f[1]); }));
  add(detail, items("Decisions Made", s.de, function (d) { return pair(d[0], d[1]); }));
  add(detail, add(section("Code Context"), s.co ? h("pre", "code", s.co) : h("p", "none", "none")));
  add(detail, items("Key Names & Values", s.na, function (n) { return pair(n[0], n[1]); }));
  add(detail, items("Blockers & Open Questions", s.bl, function (t) { return h("span", "item", t); }));
  add(detail, items("Next Steps", s.nx, function (t) { return h("span", "item", t); }));
  s.ex.forEach(function (x) { add(detail, add(section(x[0]), h("pre", "extra", x[1]))); });
  var back = restoresOf(s.i);
  add(detail, items("Restores of this snapshot", back, function (r) { return h("span", "item", when(r.m) + " \u00b7 " + r.why + " \u00b7 " + r.k + " tokens"); }));
}
function jumpButton(id) {
  var found = -1;
  S.forEach(function (s, i) { if (s.i === id) found = i; });
  if (found < 0) return h("span", "none", id + " (not on this page)");
  var b = h("button", "jump", "show snapshot " + id);
  b.type = "button";
  b.addEventListener("click", function () { focusSnapshot(found); });
  return b;
}
function focusSnapshot(i) {
  for (var n = 0; n < shown.length; n++) if (shown[n].k === "s" && shown[n].i === i) { select(n); list.focus(); return; }
  $("f-clear").click();
  for (var k = 0; k < shown.length; k++) if (shown[k].k === "s" && shown[k].i === i) { select(k); list.focus(); return; }
}
function showCompaction(c) {
  add(detail, h("h2", c.c === "none" ? "gap-text" : null, (isReset(c) ? "Reset" : "Compaction") + " \u00b7 " + c.p + (c.c === "none" ? " \u00b7 no capture" : "")));
  add(detail, fields([["when", c.t], ["session", c.s], ["agent", c.a], ["path", c.p], ["flush", c.fl ? "ran" : "did not run"],
    ["covered by", c.c === "none" ? "nothing: no snapshot was captured before it" : c.c], ["outcome", c.o], ["note", c.no],
    ["restored", c.r ? when(Date.parse(c.r.t)) + " \u00b7 " + c.r.sn + " \u00b7 " + c.r.k + " tokens" : "not restored"]]));
  if (c.sn) add(detail, jumpButton(c.sn));
}
function showRestore(r) {
  add(detail, h("h2", null, "Restore \u00b7 " + r.why));
  add(detail, fields([["when", r.t], ["session", r.s], ["snapshot", r.sn], ["why", r.why], ["tokens injected", String(r.k)]]));
  add(detail, jumpButton(r.sn));
}
function showDetail(e) {
  detail.textContent = "";
  if (!e) return;
  if (e.k === "s") showSnapshot(S[e.i]);
  else if (e.k === "c") showCompaction(C[e.i]);
  else showRestore(R[e.i]);
}

var searchBox = $("f-search"), searchResult = $("bm-search-result"), searchTimer = 0;
function runSearch() {
  var q = searchBox.value.trim();
  if (q === "") { F.hits = null; searchResult.textContent = ""; refresh(); return; }
  var found = search(q);
  F.hits = found.hits;
  var begins = found.prefixes.map(function (p) { return p.raw + " is the start of " + p.words.join(", "); }).join("; ");
  searchResult.textContent = found.hits.size === 0
    ? "No snapshot mentions " + found.named + "."
    : found.prefixes.length > 0
      ? begins + ": " + plural(found.hits.size, "snapshot") + " on this page " + (found.hits.size === 1 ? "matches" : "match") + " by prefix."
      : plural(found.hits.size, "snapshot") + " on this page " + (found.hits.size === 1 ? "mentions " : "mention ") + q + ".";
  searchResult.className = found.hits.size === 0 ? "absent" : "found";
  refresh();
}
searchBox.addEventListener("input", function () { clearTimeout(searchTimer); searchTimer = setTimeout(runSearch, 120); });
searchBox.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { clearTimeout(searchTimer); runSearch(); } });

function totalsTable(caption, rows) {
  var table = h("table", "totals");
  add(table, h("caption", null, caption));
  var head = h("tr");
  add(head, h("th", null, caption.indexOf("day") >= 0 ? "day" : "session"), h("th", null, "restores"), h("th", null, "tokens injected"));
  add(table, add(h("thead"), head));
  var body = h("tbody");
  rows.forEach(function (r) { add(body, add(h("tr"), h("td", null, r[0]), h("td", "num", String(r[1])), h("td", "num", String(r[2])))); });
  return add(table, body);
}
function sums(key) {
  var m = new Map();
  R.forEach(function (r) { var k = key(r), v = m.get(k) || [k, 0, 0]; v[1]++; v[2] += r.k; m.set(k, v); });
  return Array.from(m.values());
}
var tokens = $("bm-tokens");
var total = R.reduce(function (n, r) { return n + r.k; }, 0);
add(tokens, h("h2", null, "Tokens injected by big-memory"), h("p", "total", plural(R.length, "restore") + ", " + total + " tokens in all."));
add(tokens, totalsTable("Per session", sums(function (r) { return laneOf(r.s); }).sort(function (x, y) { return y[2] - x[2]; })));
add(tokens, totalsTable("Per day", sums(function (r) { return ymd(r.m); }).sort(function (x, y) { return x[0] < y[0] ? 1 : -1; })));
if (D.problems.length > 0) {
  var probs = $("bm-problems");
  add(probs, h("h2", null, "Problems found reading the workspace"));
  var ul = h("ul");
  D.problems.forEach(function (p) { add(ul, h("li", "problem", p)); });
  add(probs, ul);
}
refresh();
performance.mark("bm-ready");
document.body.dataset.ready = "true";
`;
