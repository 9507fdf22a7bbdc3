import type { IncomingMessage, ServerResponse } from "node:http";
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { type SurfaceDeps, warnOnce, workspaceForAgent } from "./context.ts";
import { agentIds, defaultAgentId, IMPLICIT_AGENT_ID } from "./openclaw-paths.ts";
import { pagePolicy, renderPage } from "./view-page.ts";
import { readViewPage } from "./view-read.ts";

/**
 * The memory timeline in OpenClaw's Control UI: a "Memory timeline" tab whose frame loads the plugin's own
 * HTTP route, {@link VIEW_ROUTE_PATH}, which requires the gateway's auth (`auth: "gateway"`; the Control UI
 * hands its sandboxed frame a short-lived read-only grant). The route is read-only (GET and HEAD), serves
 * the workspace of the agent asked for (`?agent=ID`, the default agent without one) and nothing else, and
 * answers one page at a time from the search index (`&page=N`, view-read.ts). references/view.md documents it.
 */

/** The route's path on the gateway. */
export const VIEW_ROUTE_PATH = "/plugins/big-memory/timeline";

/** The tab's descriptor id. */
export const VIEW_TAB_ID = "memory-timeline";

/** A request's answer before it is sent. */
export interface ViewAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const text = (status: number, body: string, extra: Record<string, string> = {}): ViewAnswer => ({
  status,
  headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...extra },
  body: `${body}\n`,
});

/**
 * The answer to a request for `url` (path and query) with `method`: 405 for anything but GET and HEAD,
 * 400 for a malformed agent or page, 404 for an agent the config does not know, else the page.
 */
export async function answerView(deps: SurfaceDeps, method: string, url: string): Promise<ViewAnswer> {
  if (method !== "GET" && method !== "HEAD")
    return text(405, `big-memory: the memory timeline is read-only (GET or HEAD), not ${method}`, {
      Allow: "GET, HEAD",
    });
  const query = new URL(url, "http://gateway.invalid").searchParams;
  const asked = query.get("agent");
  const agent = asked ?? defaultAgentId(deps.openclawConfig) ?? IMPLICIT_AGENT_ID;
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/i.test(agent))
    return text(
      400,
      `big-memory: agent must be an agent id (letters, digits, - and _), received ${JSON.stringify(agent.slice(0, 80))}`,
    );
  const known = agentIds(deps.openclawConfig);
  if (!known.includes(agent.toLowerCase()))
    return text(404, `big-memory: no agent ${agent} in this gateway's config (agents: ${known.join(", ")})`);
  const pageText = query.get("page") ?? "1";
  if (!/^[1-9]\d{0,6}$/.test(pageText))
    return text(
      400,
      `big-memory: page must be a whole number from 1, received ${JSON.stringify(pageText.slice(0, 80))}`,
    );
  const dir = workspaceForAgent(deps.openclawConfig, agent.toLowerCase(), deps.env);
  const data = await readViewPage(dir, deps.workspaces.get(dir), {
    agent: agent.toLowerCase(),
    page: Number(pageText),
    now: deps.now(),
  });
  return {
    status: 200,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Security-Policy": `${pagePolicy()}; frame-ancestors 'self'`,
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
    },
    body: renderPage(data),
  };
}

/** Sends `answer` on `res` (headers only for HEAD). */
function send(res: ServerResponse, method: string, answer: ViewAnswer): void {
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader("Content-Length", Buffer.byteLength(answer.body));
  res.end(method === "HEAD" ? undefined : answer.body);
}

/**
 * Registers the route and the Control UI tab (no disk, no timer: the route reads on request). A host
 * without HTTP routes or without Control UI descriptors (an older OpenClaw, a CLI-only registration) gets
 * what it has of the two.
 */
export function registerViewRoute(api: OpenClawPluginApi, deps: SurfaceDeps): void {
  if (typeof api.registerHttpRoute !== "function") return;
  api.registerHttpRoute({
    path: VIEW_ROUTE_PATH,
    auth: "gateway",
    match: "exact",
    handler: async (req: IncomingMessage, res: ServerResponse) => {
      const method = req.method ?? "GET";
      try {
        send(res, method, await answerView(deps, method, req.url ?? VIEW_ROUTE_PATH));
      } catch (error) {
        warnOnce(deps, "the memory timeline route", error);
        send(
          res,
          method,
          text(500, "big-memory: the memory timeline could not be read (see the gateway log)"),
        );
      }
      return true;
    },
  });
  const controls = (api as Partial<Pick<OpenClawPluginApi, "session">>).session?.controls;
  if (typeof controls?.registerControlUiDescriptor !== "function") return;
  controls.registerControlUiDescriptor({
    surface: "tab",
    id: VIEW_TAB_ID,
    label: "Memory timeline",
    description: "big-memory's snapshots, compactions and restores per session, on a time axis.",
    icon: "clock",
    group: "agent",
    path: VIEW_ROUTE_PATH,
    requiredScopes: ["operator.read"],
  });
}
