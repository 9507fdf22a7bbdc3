/**
 * The memory timeline in a real browser: Debian's headless Chromium (`apt-get install chromium`; `.ci/run`
 * installs it) driven by playwright-core, opening the page two ways: the file `big-memory view` writes,
 * from `file://`, and the Control UI tab's route on a real OpenClaw 2026.9.6 gateway, with the gateway's
 * token auth. The workspace holds a history written through big-memory's own write paths
 * (test/surface/view-fixture.ts), hostile snapshot texts included. Screenshots go to
 * `.cache/artifacts/` (ignored by git).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ABSENT_ID,
  FIRST_GOAL,
  HOSTILE,
  NEW_FAILURE,
  NIGHTLY,
  PRESENT_ID,
  writeTimelineWorkspace,
} from "../surface/view-fixture.ts";
import { type FakeModel, startFakeModel } from "./harness/fake-model.ts";
import { createInstance, type GatewayInfo, type Instance } from "./harness/instance.ts";
import { ensureOpenClaw } from "./harness/openclaw-install.ts";
import { type PluginStage, stageBigMemory } from "./harness/plugin-stage.ts";

const TEST_TIMEOUT_MS = 300_000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARTIFACTS = resolve(import.meta.dirname, "../../.cache/artifacts");
const ROUTE = "/plugins/big-memory/timeline";

let stage: PluginStage;
let model: FakeModel;
let instance: Instance;
let gateway: GatewayInfo;
let browser: Browser;
let listed: { session: string | null }[];
let pageFile: string;

/** The staged `big-memory` CLI on the instance's workspace; its JSON document and exit code. */
async function bigMemory(args: string[]): Promise<{ code: number | null; json: Record<string, unknown> }> {
  const run = await stage.cli([...args, "--dir", instance.workspaceDir, "--json"], {
    env: instance.env,
    cwd: instance.root,
  });
  return { code: run.code, json: JSON.parse(run.stdout) as Record<string, unknown> };
}

beforeAll(async () => {
  const [install, staged] = await Promise.all([ensureOpenClaw("2026.9.6"), stageBigMemory()]);
  stage = staged;
  model = await startFakeModel(() => undefined);
  instance = await createInstance({
    install,
    modelUrl: model.url,
    plugins: [{ dir: stage.dir, id: "big-memory", config: {} }],
  });
  await mkdir(join(instance.workspaceDir, "memory"), { recursive: true });
  await writeTimelineWorkspace(instance.workspaceDir);
  listed = (await bigMemory(["list"])).json.snapshots as { session: string | null }[];
  pageFile = join(instance.root, "timeline.html");
  const view = await bigMemory(["view", "--out", pageFile]);
  expect(view.code).toBe(0);
  expect(view.json).toMatchObject({ file: pageFile, snapshots: listed.length, gaps: 1, restores: 3 });
  gateway = await instance.startGateway();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  await mkdir(ARTIFACTS, { recursive: true });
}, TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await instance?.dispose();
  await model?.close();
  await stage?.dispose();
});

/**
 * The fields of a DOM element these checks read (the project compiles without the DOM's types; the
 * callbacks of `$$eval` run in the page, so they cast rather than call a helper of this file).
 */
interface El {
  id: string;
  textContent: string | null;
  offsetParent: unknown;
  dataset: Record<string, string | undefined>;
}

/** What a page did besides drawing: console errors, dialogs, requests, navigations. */
interface Watch {
  errors: string[];
  dialogs: string[];
  requests: string[];
  navigations: string[];
}

async function open(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ page: Page; watch: Watch }> {
  const context = await browser.newContext({
    viewport: { width: 1400, height: 1000 },
    extraHTTPHeaders: headers,
  });
  const page = await context.newPage();
  const watch: Watch = { errors: [], dialogs: [], requests: [], navigations: [] };
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") watch.errors.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => watch.errors.push(`pageerror: ${e.message}`));
  page.on("dialog", (d) => {
    watch.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on("request", (r) => watch.requests.push(r.url()));
  page.on("framenavigated", (f) => watch.navigations.push(f.url()));
  const answer = await page.goto(url);
  expect(answer?.status() ?? 200).toBe(200);
  await page.waitForSelector("body[data-ready=true]");
  return { page, watch };
}

/** Every check of the done-when list, on one opened page; `shot` names its screenshot. */
async function checkPage(page: Page, watch: Watch, shot: string): Promise<void> {
  // Lanes and their counts are list --json's, session by session.
  const lanes = await page.$$eval(".lane-name", (bs) =>
    bs.map(
      (b) => [(b as unknown as El).dataset.session, Number((b as unknown as El).dataset.snapshots)] as const,
    ),
  );
  const perSession = new Map<string, number>();
  for (const s of listed)
    perSession.set(s.session ?? "(no session)", (perSession.get(s.session ?? "(no session)") ?? 0) + 1);
  expect(new Map(lanes.filter(([, n]) => n > 0))).toEqual(perSession);
  expect(await page.textContent("#bm-meta")).toContain(`${listed.length} snapshots`);

  // The compaction with no capture stands out: its lane, its row, its detail.
  expect(await page.getAttribute(`.lane-name[data-session="${NIGHTLY}"]`, "class")).toContain("has-gap");
  await page.selectOption("#f-kind", "gaps");
  const gapRows = await page.$$eval(".row", (rows) => rows.map((r) => [r.className, r.textContent ?? ""]));
  expect(gapRows).toHaveLength(1);
  expect(gapRows[0]?.[0]).toContain("gap");
  expect(gapRows[0]?.[1]).toContain("NO CAPTURE");
  await page.click(".row");
  expect(await page.textContent("#bm-detail")).toContain("nothing: no snapshot was captured before it");
  await page.click("#f-clear");

  // The diff of the checkpoint's snapshot against its session's previous one.
  await page.selectOption("#f-name", "oauth-fix");
  await page.click(".row.k-s");
  expect(await page.textContent("#bm-detail .diff-goal")).toContain(FIRST_GOAL);
  expect(await page.$$eval("#bm-detail .diff-fail", (l) => l.map((e) => e.textContent))).toContainEqual(
    `new failure or blocker: ${NEW_FAILURE}`,
  );
  await page.click("#f-clear");

  // Search: the CLI's identifier rule, the same snapshots as `big-memory search`.
  const cliHits = (await bigMemory(["search", PRESENT_ID])).json.snapshots as { id: string }[];
  await page.fill("#f-search", PRESENT_ID);
  await page.press("#f-search", "Enter");
  expect(await page.textContent("#bm-search-result")).toBe(
    `${cliHits.length} snapshot on this page mentions ${PRESENT_ID}.`,
  );
  const shownIds = await page.$$eval(".row.k-s .what", (l) => l.length);
  expect(shownIds).toBe(cliHits.length);
  const absent = await bigMemory(["search", ABSENT_ID]);
  expect(absent.code).toBe(1);
  await page.fill("#f-search", ABSENT_ID);
  await page.press("#f-search", "Enter");
  expect(await page.textContent("#bm-search-result")).toBe(`No snapshot mentions ${ABSENT_ID}.`);
  expect(await page.$$(".row")).toHaveLength(0);
  await page.click("#f-clear");

  // Hostile texts show as text and do nothing.
  await page.selectOption("#f-session", NIGHTLY);
  await page.selectOption("#f-kind", "snapshots");
  await page.click(".row.k-s");
  const detail = (await page.textContent("#bm-detail")) ?? "";
  for (const hostile of [
    HOSTILE.closing,
    HOSTILE.script,
    HOSTILE.link,
    HOSTILE.handler,
    HOSTILE.comment,
    HOSTILE.fence,
  ])
    expect(detail).toContain(hostile);
  expect(detail).toContain("invoice\\u202etxt.exe");
  expect(detail).toContain("bell\\u0007");
  expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
  expect(
    await page.$$(
      "#bm-detail img, #bm-detail svg, #bm-detail script, a[href^='javascript'], iframe, meta[http-equiv=refresh]",
    ),
  ).toHaveLength(0);
  expect(await page.$$("script")).toHaveLength(2);
  await page.click("#f-clear");
  await page.screenshot({ path: join(ARTIFACTS, shot), fullPage: true });

  // Keyboard focus reaches every control.
  await page.selectOption("#f-kind", "compactions");
  await page.focus("#bm-list");
  await page.keyboard.press("Home");
  await page.selectOption("#f-kind", "all");
  await page.focus("#bm-list");
  await page.keyboard.press("ArrowDown");
  await page.evaluate("document.activeElement && document.activeElement.blur()");
  const controls = await page.$$eval("select, input, button, [tabindex='0']", (els) =>
    els
      .filter((e) => (e as unknown as El).offsetParent !== null)
      .map((e) => e.id || (e as unknown as El).dataset.session || e.textContent || ""),
  );
  const reached = new Set<string>();
  for (let i = 0; i < controls.length * 2 + 10; i++) {
    await page.keyboard.press("Tab");
    reached.add(
      await page.evaluate<string>(
        "(() => { const e = document.activeElement; return e === null ? '' : e.id || e.dataset.session || e.textContent || ''; })()",
      ),
    );
  }
  expect(controls.filter((c) => !reached.has(c))).toEqual([]);

  expect(watch.errors).toEqual([]);
  expect(watch.dialogs).toEqual([]);
  expect(new Set(watch.navigations).size).toBe(1);
}

describe("the memory timeline in Chromium", () => {
  it(
    "the file big-memory view wrote, opened from file://",
    async () => {
      const url = `file://${pageFile}`;
      const { page, watch } = await open(url);
      await checkPage(page, watch, "view-file.png");
      expect(watch.requests).toEqual([url]);
      await page.context().close();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "the Control UI tab's route on a real gateway, with its auth",
    async () => {
      const base = `http://127.0.0.1:${gateway.port}`;
      const url = `${base}${ROUTE}?agent=main`;
      expect((await fetch(url)).status).toBe(401);
      const auth = { Authorization: `Bearer ${gateway.token}` };
      expect((await fetch(url, { method: "POST", headers: auth })).status).toBe(405);
      expect((await fetch(`${base}${ROUTE}?agent=nobody`, { headers: auth })).status).toBe(404);
      const head = await fetch(url, { headers: auth });
      expect(head.headers.get("content-security-policy")).toContain("frame-ancestors 'self'");
      const { page, watch } = await open(url, auth);
      await checkPage(page, watch, "view-tab.png");
      // The browser asks for the site's icon on its own; the page itself requests nothing.
      expect(watch.requests.filter((r) => !r.endsWith("/favicon.ico"))).toEqual([url]);
      await page.context().close();
      // The Control UI's sidebar lists the tab, whose frame loads this route.
      const described = (await instance.gatewayCall("plugins.uiDescriptors", {})) as {
        controlUiTabs?: unknown[];
      };
      await writeFile(join(ARTIFACTS, "view-ui-descriptors.json"), JSON.stringify(described, null, 2));
      expect(described.controlUiTabs).toContainEqual(
        expect.objectContaining({
          pluginId: "big-memory",
          id: "memory-timeline",
          label: "Memory timeline",
          path: ROUTE,
        }),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "the Memory timeline tab in OpenClaw's Control UI, its frame loaded through the gateway's grant",
    async () => {
      const base = `http://127.0.0.1:${gateway.port}`;
      const context = await browser.newContext({ viewport: { width: 1500, height: 1000 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      await page.goto(`${base}/plugin?plugin=big-memory&id=memory-timeline#token=${gateway.token}`);
      const frameElement = await page.waitForSelector(`iframe[src*="${ROUTE}"]`, { timeout: 120_000 });
      const frame = await frameElement.contentFrame();
      expect(frame).not.toBeNull();
      await frame?.waitForSelector("body[data-ready=true]", { timeout: 120_000 });
      expect(await frame?.textContent("#bm-meta")).toContain(`${listed.length} snapshots`);
      await page.screenshot({ path: join(ARTIFACTS, "view-control-ui.png") });
      await writeFile(join(ARTIFACTS, "view-control-ui-console.txt"), errors.join("\n"));
      await context.close();
    },
    TEST_TIMEOUT_MS,
  );
});
