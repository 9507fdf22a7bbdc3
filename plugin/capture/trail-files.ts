import { isCheckCommand } from "./command.ts";
import type { ToolOutcome } from "./tool-outcome.ts";
import type { FileAction, TrailFile } from "./trail.ts";

/**
 * The files of a session trail: which files a tool call touched (OpenClaw's tools, editor tools, patches,
 * and shell commands that write a file), one spelling per file (relative to the workspace or to the
 * harness's root folder), and the list kept within its bound without losing the files that changed.
 */

export type FileOp = { path: string; action: FileAction };

/** How a trail's last action names a file action. */
export const ACTION_VERB: Readonly<Record<FileAction, string>> = {
  read: "read",
  create: "created",
  write: "wrote",
  edit: "edited",
  delete: "deleted",
  move: "moved to",
  mention: "named",
};

/**
 * One more run of `command` counted among the session's habits: its count raised (it moves last), or it
 * joins with 1; past `max`, the command run least often (the oldest among equals) is dropped, a command
 * that checks a change (`isCheckCommand`: tests, builds, linters) after every other.
 */
export function countHabit(
  habits: readonly { command: string; runs: number }[],
  command: string,
  max: number,
): { command: string; runs: number }[] {
  if (command === "") return [...habits];
  const runs = (habits.find((h) => h.command === command)?.runs ?? 0) + 1;
  const kept = [...habits.filter((h) => h.command !== command), { command, runs }];
  while (kept.length > max) {
    const weight = (h: { command: string; runs: number } | undefined) =>
      h === undefined ? 0 : h.runs + (isCheckCommand(h.command) ? 1e6 : 0);
    const least = kept.reduce((low, h, i) => (weight(kept[low]) <= weight(h) ? low : i), 0);
    kept.splice(least, 1);
  }
  return kept;
}

const READ_TOOLS = new Set("read read_file view view_file open_file cat".split(" "));
const WRITE_TOOLS = new Set("write write_file create_file".split(" "));
const EDIT_TOOLS = new Set("edit multiedit multi_edit edit_file str_replace str_replace_editor".split(" "));
const EDITOR_TOOLS = new Set("str_replace_based_edit_tool text_editor".split(" "));
const PATCH_HEADER = /^\s*\*\*\* (Add|Update|Delete) File: (.+?)\s*$|^\s*\*\*\* Move to: (.+?)\s*$/gm;
/** `cat > x.py << 'EOF'`, `cat <<EOF > x.py`, `tee x.py <<EOF`: a shell command that writes a file. */
const HEREDOC_WRITE =
  /^\s*(?:cat\s*(?:<<-?\s*['"]?\w+['"]?\s*)?>{1,2}\s*([^\s<>|&;]+)|tee\s+(?:-a\s+)?([^\s<>|&;]+)\s*<<)/;
/** `sed -i 's/a/b/' path`: an in-place edit of the files named last. */
const SED_IN_PLACE =
  /^\s*sed\s+(?:-[a-zA-Z]*i[a-zA-Z]*(?:\s+''|\s+\.\w+)?|--in-place(?:=\S*)?)\s+(?:-e\s+)?(?:'[^']*'|"[^"]*")\s+([^\s<>|&;]+)\s*$/;
/** A download saved to a file: `curl -L URL -o path` (`-sLo`, `--output`), `wget URL -O path`. */
const DOWNLOAD =
  /^\s*(?:curl\s(?:.*\s)?(?:-[a-zA-Z]*o|--output)|wget\s(?:.*\s)?(?:-[a-zA-Z]*O|--output-document))[\s=](["']?)([^\s"'<>|&;]+)\1/;

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The files a tool call touched, from OpenClaw's parameter names (`path`, `file_path`, `filePath`, `paths`, `input`). */
export function fileOps(tool: string, params: Record<string, unknown>, outcome: ToolOutcome): FileOp[] {
  const paths = [params.path, params.file_path, params.filePath, params.paths, params.file].flatMap(
    stringsOf,
  );
  if (tool === "apply_patch") {
    const patch =
      typeof params.input === "string" ? params.input : typeof params.patch === "string" ? params.patch : "";
    const ops: FileOp[] = [];
    for (const m of patch.slice(0, 200_000).matchAll(PATCH_HEADER)) {
      const [, kind, path, moved] = m;
      if (moved !== undefined) {
        const from = ops.at(-1);
        if (from !== undefined) from.action = "delete";
        ops.push({ path: moved, action: "move" });
      } else if (path !== undefined) {
        ops.push({ path, action: kind === "Add" ? "create" : kind === "Delete" ? "delete" : "edit" });
      }
    }
    return ops;
  }
  const command = typeof params.command === "string" ? params.command : "";
  let action: FileAction | null = null;
  if (READ_TOOLS.has(tool) || (EDITOR_TOOLS.has(tool) && command === "view")) action = "read";
  else if (WRITE_TOOLS.has(tool)) action = outcome.created ? "create" : "write";
  else if (EDITOR_TOOLS.has(tool) && command === "create") action = "create";
  else if (EDIT_TOOLS.has(tool) || EDITOR_TOOLS.has(tool)) action = "edit";
  return action === null ? [] : paths.map((path) => ({ path, action }));
}

/** The files a shell command writes: a heredoc redirected to a file, an in-place `sed`, a download. */
export function commandFileOps(command: string): FileOp[] {
  const first = command.trim().split("\n")[0] ?? "";
  const segment = first.split(/&&|;/).map((s) => s.trim());
  const ops: FileOp[] = [];
  for (const part of segment) {
    const heredoc = HEREDOC_WRITE.exec(part);
    const target = heredoc?.[1] ?? heredoc?.[2];
    if (target !== undefined && target !== "/dev/null") ops.push({ path: target, action: "write" });
    const sed = SED_IN_PLACE.exec(part);
    if (sed?.[1] !== undefined) ops.push({ path: sed[1], action: "edit" });
    const saved = DOWNLOAD.exec(part)?.[2];
    if (saved !== undefined && saved !== "-" && saved !== "/dev/null")
      ops.push({ path: saved, action: "write" });
  }
  return ops;
}

/** The `cd /abs/dir` a command line starts in, or null. */
export function commandDir(command: string): string | null {
  const m = /^\s*cd\s+(["']?)(\/[^\s"';&|]+)\1\s*(?:&&|;)/.exec(command);
  return m?.[2]?.replace(/\/+$/, "") ?? null;
}

/** Where a path is kept relative to: the workspace and the harness's root folder. */
export interface PathRoots {
  workspaceDir?: string | undefined;
  root?: string | null | undefined;
}

/** A path as kept in the trail, or null for a path that is not a file in play (daily logs under `memory/`). */
export function normalizePath(path: string, roots: PathRoots, maxChars: number): string | null {
  let p = path.trim().replace(/^(?:\.\/)+/, "");
  // A glob (`src/*.ts`, `{a,b}.ts`) names no one file; brackets do not make one (`app/[slug]/page.tsx`).
  if (/[*?]|\{[^}]*,[^}]*\}/.test(p)) return null;
  for (const r of [roots.workspaceDir, roots.root]) {
    const root = r?.replace(/\/+$/, "");
    if (root !== undefined && root !== null && root !== "" && p.startsWith(`${root}/`)) {
      p = p.slice(root.length + 1);
      break;
    }
  }
  if (p === "" || p.length > maxChars || /[\p{Cc}\p{Zl}\p{Zp}]/u.test(p)) return null;
  if (p.startsWith("memory/") || /(?:^|\/)memory\/\d{4}-\d{2}-\d{2}[^/]*\.md$/.test(p)) return null;
  return p;
}

/** Whether two spellings name one file: equal, or an absolute one ending in the relative one. */
export function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  // One spelling ends with the other (an absolute path, or one relative to a parent folder of the
  // other's): the shorter must name a folder too, so that `index.ts` does not match every index.ts.
  const [long, short] = a.length >= b.length ? [a, b] : [b, a];
  return !short.startsWith("/") && short.includes("/") && long.endsWith(`/${short}`);
}

/**
 * The files after one more touch. The file keeps its relative spelling when one was seen; a mention
 * (a path named in prose) never overrides what a tool did. Past `max`, the least recently touched file
 * that did not change goes first, so a file edited early stays in a long session.
 */
export function touchFile(files: readonly TrailFile[], op: FileOp, at: string, max: number): TrailFile[] {
  let old: TrailFile | undefined;
  for (const f of files)
    if (samePath(f.path, op.path)) {
      old = f;
      break;
    }
  const path = old === undefined ? op.path : preferred(old.path, op.path);
  if (op.action === "mention") {
    if (old !== undefined) return [...files];
    const mentioned: TrailFile = {
      path,
      reads: 0,
      writes: 0,
      created: false,
      lastAction: "mention",
      lastSeen: at,
    };
    return bound([...files, mentioned], max);
  }
  const read = op.action === "read";
  const next: TrailFile = {
    path,
    reads: (old?.reads ?? 0) + (read ? 1 : 0),
    writes: (old?.writes ?? 0) + (read ? 0 : 1),
    created: (old?.created ?? false) || op.action === "create",
    lastAction: op.action,
    lastSeen: at,
  };
  // Loops, not callbacks made per call: those lose their optimised code at every full collection.
  const kept: TrailFile[] = [];
  for (const f of files) if (f !== old) kept.push(f);
  kept.push(next);
  return bound(kept, max);
}

/** Of two spellings of one file: a relative one over an absolute one, then the longer (more specific) one. */
function preferred(a: string, b: string): string {
  if (a.startsWith("/") !== b.startsWith("/")) return a.startsWith("/") ? b : a;
  return b.length > a.length ? b : a;
}

/** `files` (a new array of the caller's, cut in place) at most `max` long: unchanged files go first. */
function bound(files: TrailFile[], max: number): TrailFile[] {
  while (files.length > max) files.splice(Math.max(files.findIndex(isUnchanged), 0), 1);
  return files;
}

const isUnchanged = (f: TrailFile) => f.writes === 0;

/** Names a harness or an agent gives throw-away files: `reproduce_issue.py`, `debug.js`, `test_fix.py`. */
const SCRATCH_NAME =
  /^(?:repro|reproduce|reproduction|debug|scratch|tmp|temp|try|check|verify|test_(?:fix|issue|repro|bug|my|simple|edge|comprehensive)|demo|sandbox|quick)[\w.-]*\.\w+$/i;

/** Whether a file is a scratch file of the session rather than a file of the project. */
export function isScratch(f: TrailFile): boolean {
  if (/^\/tmp\/|^\/var\/tmp\//.test(f.path)) return true;
  const atRoot = !f.path.includes("/") || /^\/[^/]+\/[^/]+$/.test(f.path);
  return atRoot && SCRATCH_NAME.test(f.path.slice(f.path.lastIndexOf("/") + 1));
}

/** Paths named in prose: `src/app/db.ts`, `migrations/0042_unique_session.sql` (a folder and a known extension). */
const PROSE_PATH =
  /(?<![\w/.@:-])((?:\.{0,2}\/)?(?:[\w@.-]+\/)+[\w.-]+\.(?:[cm]?[jt]sx?|py|go|rs|rb|java|kt|swift|c|h|cc|cpp|cs|php|md|json|ya?ml|toml|sql|sh|css|scss|html|vue|svelte|proto|graphql|tf))(?![\w/])/g;

/** The file paths a text names, in order, each once, at most `max`. */
export function mentionedPaths(text: string, max: number): string[] {
  const paths = [...text.matchAll(PROSE_PATH)].map((m) => m[1] ?? "").filter((p) => !/^https?:/.test(p));
  return [...new Set(paths)].slice(0, max);
}
