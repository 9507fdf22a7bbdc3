import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { afterEach, describe, expect, it } from "vitest";
import { parsePluginConfig } from "../../plugin/config.ts";
import { Workspaces } from "../../plugin/session/workspace.ts";
import type { SurfaceDeps } from "../../plugin/surface/context.ts";
import { pagePolicy } from "../../plugin/surface/view-page.ts";
import { answerView, registerViewRoute, VIEW_ROUTE_PATH } from "../../plugin/surface/view-route.ts";
import { workspaces } from "./cli-harness.ts";
import { NIGHTLY, writeTimelineWorkspace } from "./view-fixture.ts";

const workspace = workspaces();
const opened: Workspaces[] = [];
afterEach(async () => {
  for (const w of opened.splice(0)) await w.closeAll();
});

/** The plugin's deps over a config of two agents, `main` on `mainDir` and `ops` on `opsDir`. */
function deps(mainDir: string, opsDir: string): SurfaceDeps {
  const config = parsePluginConfig({});
  const logger = { warn: () => {}, info: () => {} };
  const now = () => new Date("2026-11-26T00:00:00Z");
  const ws = new Workspaces({ config, logger, now });
  opened.push(ws);
  return {
    config,
    workspaces: ws,
    logger,
    now,
    sessionWorkspaces: new Map(),
    openclawConfig: {
      agents: {
        list: [
          { id: "main", default: true, workspace: mainDir },
          { id: "ops", workspace: opsDir },
        ],
      },
    },
    env: {},
  };
}

const island = (body: string) =>
  JSON.parse(/<script type="application\/json" id="bm-data">([^<]*)<\/script>/.exec(body)?.[1] ?? "null") as {
    workspace: string;
    snapshots: { s: string }[];
    paging: { page: number; total: number };
  };

describe("answerView", () => {
  it("serves the page of the agent asked for, its workspace only, under the page's policy and frame-ancestors", async () => {
    const main = workspace();
    const ops = workspace();
    await writeTimelineWorkspace(main);
    const d = deps(main, ops);
    const page = await answerView(d, "GET", `${VIEW_ROUTE_PATH}?agent=main`);
    expect(page.status).toBe(200);
    expect(page.headers["Content-Security-Policy"]).toBe(`${pagePolicy()}; frame-ancestors 'self'`);
    expect(page.headers["Cache-Control"]).toBe("no-store");
    expect(island(page.body)).toMatchObject({ workspace: main, paging: { page: 1, total: 4 } });
    expect(island(page.body).snapshots.map((s) => s.s)).toContain(NIGHTLY);
    const other = await answerView(d, "GET", `${VIEW_ROUTE_PATH}?agent=ops`);
    expect(island(other.body)).toMatchObject({ workspace: ops, snapshots: [], paging: { total: 0 } });
    const byDefault = await answerView(d, "HEAD", VIEW_ROUTE_PATH);
    expect(island(byDefault.body).workspace).toBe(main);
  });

  it("is read-only, and refuses a malformed or unknown agent and a malformed page, naming it", async () => {
    const d = deps(workspace(), workspace());
    const post = await answerView(d, "POST", VIEW_ROUTE_PATH);
    expect([post.status, post.headers.Allow, post.body]).toEqual([
      405,
      "GET, HEAD",
      "big-memory: the memory timeline is read-only (GET or HEAD), not POST\n",
    ]);
    const bad = await answerView(d, "GET", `${VIEW_ROUTE_PATH}?agent=../etc`);
    expect([bad.status, bad.body]).toEqual([
      400,
      'big-memory: agent must be an agent id (letters, digits, - and _), received "../etc"\n',
    ]);
    const unknown = await answerView(d, "GET", `${VIEW_ROUTE_PATH}?agent=nobody`);
    expect([unknown.status, unknown.body]).toEqual([
      404,
      "big-memory: no agent nobody in this gateway's config (agents: main, ops)\n",
    ]);
    const page = await answerView(d, "GET", `${VIEW_ROUTE_PATH}?page=0`);
    expect([page.status, page.body]).toEqual([
      400,
      'big-memory: page must be a whole number from 1, received "0"\n',
    ]);
  });
});

describe("registerViewRoute", () => {
  it("registers a gateway-auth route and a tab whose path is that route", () => {
    const routes: { path: string; auth: string; match?: string }[] = [];
    const tabs: { surface: string; id: string; label: string; path?: string }[] = [];
    const api = {
      registerHttpRoute: (r: (typeof routes)[number]) => routes.push(r),
      session: { controls: { registerControlUiDescriptor: (t: (typeof tabs)[number]) => tabs.push(t) } },
    };
    registerViewRoute(api as unknown as OpenClawPluginApi, deps("/a", "/b"));
    expect(routes).toMatchObject([{ path: VIEW_ROUTE_PATH, auth: "gateway", match: "exact" }]);
    expect(tabs).toMatchObject([
      { surface: "tab", id: "memory-timeline", label: "Memory timeline", path: VIEW_ROUTE_PATH },
    ]);
  });

  it("registers nothing on a host without HTTP routes, and the route alone without Control UI descriptors", () => {
    const routes: unknown[] = [];
    registerViewRoute({} as unknown as OpenClawPluginApi, deps("/a", "/b"));
    registerViewRoute(
      { registerHttpRoute: (r: unknown) => routes.push(r) } as unknown as OpenClawPluginApi,
      deps("/a", "/b"),
    );
    expect(routes).toHaveLength(1);
  });
});
