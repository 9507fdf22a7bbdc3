/**
 * The memory timeline's script, first part: data, filters, session lanes on a time axis, and the windowed
 * list of snapshots, compactions and restores. Plain ES2020 run by the page (no framework, no module
 * loader: the page must work from `file://` under a CSP that admits this script by its hash alone).
 * Everything it shows is inserted as text (`textContent`, `createTextNode`), never as HTML, and it
 * creates no link, frame, image or request from the data. view-script-detail.ts is the second part; both
 * run in one function scope (view-page.ts `pageScript`).
 */
export const VIEW_SCRIPT_CORE = String.raw`
var $ = function (id) { return document.getElementById(id); };
function h(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function add(parent) {
  for (var i = 1; i < arguments.length; i++) {
    var c = arguments[i];
    if (c === null || c === undefined) continue;
    parent.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return parent;
}
$("bm-meta").textContent = "";
if (!D || D.v !== 1) {
  add($("bm-meta"), "The data of this page could not be read (written by another version of big-memory?).");
  return;
}
var S = D.snapshots, C = D.compactions, R = D.restores;
var NOSESSION = "(no session)";
function laneOf(key) { return key === null || key === undefined ? NOSESSION : key; }
function agentOfKey(key) { var m = /^agent:([^:]+):/.exec(key || ""); return m ? m[1] : null; }
function pad(n) { return n < 10 ? "0" + n : String(n); }
function ymd(ms) { var d = new Date(ms); return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()); }
function when(ms) { if (!ms) return "unknown time"; var d = new Date(ms); return ymd(ms) + " " + pad(d.getHours()) + ":" + pad(d.getMinutes()); }
function plural(n, one, many) { return n + " " + (n === 1 ? one : (many || one + "s")); }
function isReset(c) { return c.p === "reset" || c.p === "rollover"; }

var events = [];
S.forEach(function (s, i) { events.push({ k: "s", m: s.m, i: i, s: laneOf(s.s), a: s.a || agentOfKey(s.s) }); });
C.forEach(function (c, i) { events.push({ k: "c", m: c.m, i: i, s: laneOf(c.s), a: c.a || agentOfKey(c.s) }); });
R.forEach(function (r, i) { events.push({ k: "r", m: r.m, i: i, s: laneOf(r.s), a: agentOfKey(r.s) }); });
events.sort(function (x, y) { return y.m - x.m || (x.k < y.k ? -1 : x.k > y.k ? 1 : y.i - x.i); });
var minT = Infinity, maxT = -Infinity;
events.forEach(function (e) { if (e.m > 0) { if (e.m < minT) minT = e.m; if (e.m > maxT) maxT = e.m; } });
if (minT === Infinity) { minT = 0; maxT = 1; }
if (maxT === minT) { minT -= 3600000; maxT += 3600000; }

var lanes = new Map();
function laneRecord(key, agent) {
  var l = lanes.get(key);
  if (!l) { l = { key: key, agent: agent, snapshots: 0, compactions: 0, gaps: 0, restores: 0, tokens: 0, last: 0, events: [] }; lanes.set(key, l); }
  if (!l.agent && agent) l.agent = agent;
  return l;
}
events.forEach(function (e) {
  var l = laneRecord(e.s, e.a);
  l.events.push(e);
  if (e.m > l.last) l.last = e.m;
  if (e.k === "s") l.snapshots++;
  else if (e.k === "c") { l.compactions++; if (C[e.i].c === "none") l.gaps++; }
  else { l.restores++; l.tokens += R[e.i].k; }
});
var laneList = Array.from(lanes.values()).sort(function (x, y) { return y.last - x.last; });

var F = { agent: "", session: "", trigger: "", name: "", from: "", to: "", kind: "all", hits: null };
function passes(e) {
  if (F.agent && e.a !== F.agent) return false;
  if (F.session && e.s !== F.session) return false;
  if (F.from || F.to) {
    var day = ymd(e.m);
    if (F.from && day < F.from) return false;
    if (F.to && day > F.to) return false;
  }
  if (F.kind === "snapshots" && e.k !== "s") return false;
  if (F.kind === "compactions" && e.k !== "c") return false;
  if (F.kind === "restores" && e.k !== "r") return false;
  if (F.kind === "gaps" && !(e.k === "c" && C[e.i].c === "none")) return false;
  if (F.trigger || F.name || F.hits) {
    if (e.k !== "s") return false;
    var s = S[e.i];
    if (F.trigger && s.g !== F.trigger) return false;
    if (F.name && s.n !== F.name) return false;
    if (F.hits && !F.hits.has(e.i)) return false;
  }
  return true;
}

function fillSelect(id, all, values) {
  var sel = $(id);
  add(sel, new Option(all, ""));
  values.forEach(function (v) { add(sel, new Option(v[1], v[0])); });
}
function counted(list) {
  var n = new Map();
  list.forEach(function (v) { if (v !== null && v !== undefined && v !== "") n.set(v, (n.get(v) || 0) + 1); });
  return Array.from(n.entries()).sort(function (x, y) { return x[0] < y[0] ? -1 : 1; })
    .map(function (e) { return [e[0], e[0] + " (" + e[1] + ")"]; });
}
fillSelect("f-agent", "every agent", counted(events.map(function (e) { return e.a; })));
fillSelect("f-session", "every session", laneList.map(function (l) { return [l.key, l.key]; }));
fillSelect("f-trigger", "every trigger", counted(S.map(function (s) { return s.g; })));
fillSelect("f-name", "every checkpoint", counted(S.map(function (s) { return s.n; })));

var meta = $("bm-meta");
add(meta, "Workspace " + D.workspace + " \u00b7 " + plural(S.length, "snapshot") + " \u00b7 " +
  plural(C.filter(function (c) { return !isReset(c); }).length, "compaction") + " \u00b7 " +
  plural(C.filter(isReset).length, "reset") + " \u00b7 " + plural(R.length, "restore") +
  " \u00b7 written " + when(Date.parse(D.generated)));
var gapsAll = C.filter(function (c) { return c.c === "none"; }).length;
if (gapsAll > 0) add(meta, " \u00b7 ", h("strong", "gap-text", plural(gapsAll, "compaction") + " with no capture"));
if (D.paging) {
  var nav = $("bm-paging");
  add(nav, "Page " + D.paging.page + " of " + D.paging.pages + " (" + plural(D.paging.total, "snapshot") + ", " + D.paging.size + " a page) ");
  [["newer", "\u2190 newer"], ["older", "older \u2192"]].forEach(function (p) {
    var q = D.paging[p[0]];
    if (typeof q !== "string" || !/^\?[a-zA-Z0-9=&%._-]*$/.test(q)) return;
    var a = h("a", "page-link", p[1]);
    a.href = q;
    add(nav, a, " ");
  });
}

var axis = $("bm-axis");
for (var t = 0; t <= 4; t++) {
  var lab = h("span", "tick", when(minT + (maxT - minT) * t / 4));
  lab.style.left = (t * 25) + "%";
  add(axis, lab);
}
var laneBox = $("bm-lanes"), laneSpacer = $("bm-lane-spacer");
var LANE = 46;
var lanesShown = laneList;
function laneRow(l, n) {
  var row = h("div", "lane");
  row.style.top = (n * LANE) + "px";
  var b = h("button", "lane-name");
  b.type = "button";
  b.dataset.session = l.key;
  b.dataset.snapshots = String(l.snapshots);
  b.dataset.gaps = String(l.gaps);
  b.setAttribute("aria-pressed", String(F.session === l.key));
  add(b, add(h("span", "lane-key", l.key), l.gaps > 0 ? h("span", "gap-text", " \u00b7 " + plural(l.gaps, "gap")) : null),
    h("span", "lane-counts", (l.agent ? "agent " + l.agent + " \u00b7 " : "") + plural(l.snapshots, "snapshot") + " \u00b7 " +
    plural(l.compactions, "compaction/reset", "compactions/resets") + " \u00b7 " + plural(l.restores, "restore")));
  if (l.gaps > 0) b.classList.add("has-gap");
  b.addEventListener("click", function () { setFilter("session", F.session === l.key ? "" : l.key); });
  var track = h("canvas", "track");
  track.setAttribute("aria-hidden", "true");
  add(row, b, track);
  return { row: row, canvas: track };
}
function drawLane(l, c) {
  var w = c.clientWidth || 600, ht = c.clientHeight || 22, r = window.devicePixelRatio || 1;
  c.width = Math.round(w * r); c.height = Math.round(ht * r);
  var g = c.getContext("2d");
  if (!g) return;
  g.scale(r, r);
  g.clearRect(0, 0, w, ht);
  var x = function (m) { return 2 + (w - 4) * (m - minT) / (maxT - minT); };
  l.events.forEach(function (e) {
    if (!passes(e)) return;
    if (e.k === "s") { g.fillStyle = "#2563eb"; g.fillRect(x(e.m) - 1, 6, 2, ht - 12); }
    else if (e.k === "r") { g.fillStyle = "#7c3aed"; g.beginPath(); g.arc(x(e.m), ht - 4, 3, 0, 6.3); g.fill(); }
  });
  l.events.forEach(function (e) {
    if (e.k !== "c" || !passes(e)) return;
    var gap = C[e.i].c === "none";
    g.fillStyle = gap ? "#dc2626" : "#059669";
    g.fillRect(x(e.m) - (gap ? 2 : 1), gap ? 0 : 3, gap ? 4 : 2, gap ? ht : ht - 6);
  });
}
// Only the lanes in view exist (a long history has thousands of sessions): drawn again on scroll.
function renderLanes() {
  var top = laneBox.scrollTop, height = laneBox.clientHeight || 240;
  var first = Math.max(0, Math.floor(top / LANE) - 2), last = Math.min(lanesShown.length, Math.ceil((top + height) / LANE) + 2);
  laneSpacer.textContent = "";
  for (var n = first; n < last; n++) {
    var made = laneRow(lanesShown[n], n);
    laneSpacer.appendChild(made.row);
    drawLane(lanesShown[n], made.canvas);
  }
}
function drawLanes() {
  lanesShown = laneList.filter(function (l) { return (!F.agent || l.agent === F.agent) && (!F.session || l.key === F.session); });
  laneSpacer.style.height = (lanesShown.length * LANE) + "px";
  laneBox.scrollTop = 0;
  renderLanes();
}
var laneQueued = false;
laneBox.addEventListener("scroll", function () {
  if (laneQueued) return;
  laneQueued = true;
  requestAnimationFrame(function () { laneQueued = false; renderLanes(); });
});

var ROW = 30;
var list = $("bm-list"), spacer = $("bm-spacer");
var shown = [], active = -1;
function summaryOf(e) {
  if (e.k === "s") {
    var s = S[e.i];
    return { badge: "snapshot" + (s.g ? " \u00b7 " + s.g : ""), text: (s.n ? "[" + s.n + "] " : "") + (s.goal || "(no goal written)"), gap: false };
  }
  if (e.k === "c") {
    var c = C[e.i];
    var covered = c.c === "none" ? "NO CAPTURE" : "covered by " + c.c + (c.sn ? " " + c.sn : "");
    return {
      badge: (isReset(c) ? "reset" : "compaction") + " \u00b7 " + c.p,
      text: covered + " \u00b7 flush " + (c.fl ? "ran" : "did not run") + " \u00b7 " + c.o + (c.r ? " \u00b7 restored " + c.r.sn + " (" + c.r.k + " tokens)" : ""),
      gap: c.c === "none",
    };
  }
  var r = R[e.i];
  return { badge: "restore \u00b7 " + r.why, text: r.sn + " \u00b7 " + r.k + " tokens", gap: false };
}
function rowOf(n) {
  var e = shown[n], sum = summaryOf(e);
  var row = h("div", "row k-" + e.k + (sum.gap ? " gap" : "") + (n === active ? " active" : ""));
  row.id = "bm-row-" + n;
  row.setAttribute("role", "option");
  row.setAttribute("aria-selected", String(n === active));
  row.style.top = (n * ROW) + "px";
  add(row, h("span", "when", when(e.m)), h("span", "badge", sum.badge), h("span", "lane-of", e.s), h("span", "what", sum.text));
  row.addEventListener("click", function () { select(n); list.focus(); });
  return row;
}
function renderRows() {
  var top = list.scrollTop, height = list.clientHeight || 600;
  var first = Math.max(0, Math.floor(top / ROW) - 4), last = Math.min(shown.length, Math.ceil((top + height) / ROW) + 4);
  spacer.textContent = "";
  for (var n = first; n < last; n++) spacer.appendChild(rowOf(n));
}
var queued = false;
list.addEventListener("scroll", function () {
  if (queued) return;
  queued = true;
  requestAnimationFrame(function () { queued = false; renderRows(); });
});
function select(n) {
  if (shown.length === 0) return;
  active = Math.max(0, Math.min(shown.length - 1, n));
  var top = active * ROW;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + ROW > list.scrollTop + list.clientHeight) list.scrollTop = top + ROW - list.clientHeight;
  renderRows();
  list.setAttribute("aria-activedescendant", "bm-row-" + active);
  showDetail(shown[active]);
}
list.addEventListener("keydown", function (ev) {
  var page = Math.max(1, Math.floor(list.clientHeight / ROW) - 1);
  var to = { ArrowDown: active + 1, ArrowUp: active - 1, PageDown: active + page, PageUp: active - page, Home: 0, End: shown.length - 1 }[ev.key];
  if (to === undefined) return;
  ev.preventDefault();
  select(to);
});
// Focus from the keyboard selects the first row; focus from a click leaves the choice to the click (a row
// drawn again under the pointer before its click would lose it).
var pointing = false;
list.addEventListener("mousedown", function () { pointing = true; });
list.addEventListener("focus", function () {
  if (!pointing && active < 0 && shown.length > 0) select(0);
  pointing = false;
});

function refresh() {
  shown = events.filter(passes);
  active = -1;
  list.removeAttribute("aria-activedescendant");
  spacer.style.height = (shown.length * ROW) + "px";
  list.scrollTop = 0;
  renderRows();
  var ns = 0, nc = 0, nr = 0;
  shown.forEach(function (e) { if (e.k === "s") ns++; else if (e.k === "c") nc++; else nr++; });
  $("bm-count").textContent = "Showing " + plural(ns, "snapshot") + ", " + plural(nc, "compaction/reset", "compactions/resets") + ", " + plural(nr, "restore") + ".";
  drawLanes();
}
var filterIds = { agent: "f-agent", session: "f-session", trigger: "f-trigger", name: "f-name", from: "f-from", to: "f-to", kind: "f-kind" };
function setFilter(key, value) {
  F[key] = value;
  $(filterIds[key]).value = value;
  refresh();
}
Object.keys(filterIds).forEach(function (key) {
  $(filterIds[key]).addEventListener("change", function (ev) { F[key] = ev.target.value; refresh(); });
});
$("f-clear").addEventListener("click", function () {
  Object.keys(filterIds).forEach(function (key) { F[key] = key === "kind" ? "all" : ""; $(filterIds[key]).value = F[key]; });
  F.hits = null;
  $("f-search").value = "";
  $("bm-search-result").textContent = "";
  refresh();
});
var resizing = false;
window.addEventListener("resize", function () {
  if (resizing) return;
  resizing = true;
  requestAnimationFrame(function () { resizing = false; renderLanes(); renderRows(); });
});
`;
