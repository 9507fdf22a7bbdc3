import type { NameKind } from "./trail.ts";

/**
 * What the trail reads in prose (asks, assistant texts, command output): identifiers by kind, git branches,
 * the assistant's stated plan and decisions.
 */

const ERRNO =
  /\bE(?:NOENT|ACCES|EXIST|PERM|PIPE|NOTDIR|ISDIR|NOTEMPTY|MFILE|CONNREFUSED|CONNRESET|ADDRINUSE|TIMEDOUT|AI_AGAIN)\b/g;
const ERRNO_EXACT = new RegExp(`^${ERRNO.source}$`);
const CAPS = /(\$\{?|process\.env\.)?\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b(=)?/g;
const ERROR_CLASS = /\b[A-Z][A-Za-z0-9]*[a-z0-9](?:Error|Exception)\b/g;
const TICKET = /\b([A-Z]{2}[A-Z0-9]{0,8})-\d+(?:-\d+)*\b/g;
const ISSUE = /(?<![\w#&/])#\d{2,6}\b/g;
const ENDPOINT = /\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) \/[\w\-./{}:]*/g;
const BACKTICK = /`([^`\s]{2,80})`/g;
const NOT_TICKETS = new Set("UTF SHA ISO TLS SSL HTTP HTTPS AES RSA IPV MD GPT ECMA CP".split(" "));
const ERROR_WORD =
  /^E(?:RR)?_|(?:^|_)(?:ERR|ERROR|FAIL|FAILED|FAILURE|EXCEPTION|INVALID|DENIED|TIMEOUT|CONFLICT|DUPLICATE|MISMATCH|MISSING|UNAUTHORIZED|FORBIDDEN|VIOLATION|NOT_FOUND|UNKNOWN|UNSUPPORTED)(?:_|$)/;
const ENV_SUFFIX = /_(?:URL|URI|KEY|TOKEN|HOST|PORT|PATH|DIR|HOME|ENV|SECRET|PASSWORD|USER|MODE|LEVEL)$/;
const FILE_EXT =
  /\.(?:[cm]?[jt]sx?|py|go|rs|rb|java|kt|swift|c|h|cc|cpp|cs|php|md|json|jsonc|ya?ml|toml|ini|sql|sh|css|scss|html|vue|svelte|txt|lock|env|xml|csv)$/i;

function capsKind(token: string, prefix: string | undefined, assigned: boolean): NameKind {
  if (prefix !== undefined || assigned) return "env";
  if (ERROR_WORD.test(token)) return "error";
  return ENV_SUFFIX.test(token) ? "env" : "identifier";
}

/** A backticked span that is a fragment, not a name: a regex or escape (`\\s`, `^x$`), an extension alone (`.mo`), an operator. */
const FRAGMENT = /\\|^[.*+?^$|([{=<>&]|[*+?^$|([{]$|^\.[A-Za-z0-9]{1,5}$/;

function spanKind(span: string): NameKind | null {
  if (!/[A-Za-z]/.test(span) || /^(?:true|false|null|undefined|none)$/i.test(span)) return null;
  if (span.length < 3 || FRAGMENT.test(span)) return null;
  // A plain lowercase word (`get`, `value`) is prose in backticks, not an identifier.
  if (/^[a-z]+$/.test(span)) return null;
  if (ERRNO_EXACT.test(span) || /^[A-Z]\w*(?:Error|Exception)$/.test(span)) return "error";
  const ticket = /^([A-Z]{2}[A-Z0-9]{0,8})-\d+(?:-\d+)*$/.exec(span);
  if (ticket?.[1] !== undefined && !NOT_TICKETS.has(ticket[1])) return "ticket";
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(span)) return capsKind(span, undefined, false);
  if (span.includes("/") || FILE_EXT.test(span)) return "path";
  return "identifier";
}

/**
 * Identifiers in a text, in order of appearance, deduplicated: error codes (`ERR_DUPLICATE_KEY`,
 * `ENOENT`, `UniqueViolationError`), tickets (`ADR-016`, `INV-2026-00417`, `#412`), endpoints
 * (`POST /api/v1/users`), environment variables (`$DATABASE_URL`, `NODE_ENV=test`, `*_URL`), and
 * with `backticks` any backticked span without white space (a path or an identifier).
 */
export function extractNames(
  text: string,
  options: { backticks: boolean },
): { value: string; kind: NameKind }[] {
  const found: { index: number; value: string; kind: NameKind }[] = [];
  const add = (index: number, value: string, kind: NameKind | null): void => {
    if (kind !== null) found.push({ index, value, kind });
  };
  for (const m of text.matchAll(ENDPOINT)) add(m.index, m[0].replace(/[.:]+$/, ""), "endpoint");
  for (const m of text.matchAll(ERRNO)) add(m.index, m[0], "error");
  for (const m of text.matchAll(ERROR_CLASS)) add(m.index, m[0], "error");
  for (const m of text.matchAll(CAPS)) {
    const token = m[2] ?? "";
    // `[REDACTED_IP]` and the like are the redactor's marks, not names the session used.
    if (token.startsWith("REDACTED")) continue;
    add(m.index + (m[1]?.length ?? 0), token, capsKind(token, m[1], m[3] !== undefined));
  }
  for (const m of text.matchAll(TICKET)) add(m.index, m[0], NOT_TICKETS.has(m[1] ?? "") ? null : "ticket");
  for (const m of text.matchAll(ISSUE)) add(m.index, m[0], "ticket");
  if (options.backticks)
    for (const m of text.matchAll(BACKTICK)) add(m.index, m[1] ?? "", spanKind(m[1] ?? ""));
  found.sort((a, b) => a.index - b.index);
  const seen = new Set<string>();
  return found.flatMap(({ value, kind }) => {
    if (seen.has(value)) return [];
    seen.add(value);
    return [{ value, kind }];
  });
}

const GIT_SWITCH =
  /\bgit\s+(?:checkout|switch)\s+(?:(-[bBcC]|--create|--orphan|--force-create)\s+)?(["']?)([^\s;&|"'<>()]+)\2/g;
const OUTPUT_BRANCH = /Switched to (?:a new )?branch '([^'\n]+)'|^On branch (\S+)|Already on '([^'\n]+)'/gm;
const PROSE_BRANCH =
  /\bon (?:the )?(?:branch\s+(?:([`'"])([\w./-]+)\1|([\w./-]+))|([`'"])([\w./-]+)\4\s+branch)/gi;
const BRANCH_NAME = /^\w[\w./-]*$/;
const COMMON_BRANCHES = new Set(["main", "master", "develop", "dev", "trunk", "staging", "production"]);

function validBranch(name: string | undefined): name is string {
  return name !== undefined && name.length <= 200 && BRANCH_NAME.test(name) && !name.endsWith(".lock");
}

/**
 * The git branch a command, its output or some prose names, or null. Output (`Switched to a new branch
 * 'x'`, `On branch x`) wins over the command (`git checkout -b x`, `git switch -c x`, `git switch x`,
 * `git checkout x` when `x` does not look like a file or commit) over prose (`on branch feat/x`, `on the
 * \`x\` branch`; a bare word only when it looks like a branch). The last mention of each kind counts.
 */
export function detectBranch(command: string, output: string, prose: string): string | null {
  let fromOutput: string | undefined;
  for (const m of output.matchAll(OUTPUT_BRANCH)) fromOutput = m[1] ?? m[2] ?? m[3];
  if (validBranch(fromOutput)) return fromOutput;
  let fromCommand: string | undefined;
  for (const m of command.matchAll(GIT_SWITCH)) {
    const name = m[3] ?? "";
    const rest = command.slice(m.index + m[0].length);
    const plain = m[1] === undefined;
    const fileLike = /\.[A-Za-z]{1,5}$/.test(name) || /^[0-9a-f]{7,40}$/.test(name) || name === "HEAD";
    if (validBranch(name) && !(plain && (fileLike || /^\s+--(?:\s|$)/.test(rest)))) fromCommand = name;
  }
  if (fromCommand !== undefined) return fromCommand;
  let fromProse: string | undefined;
  for (const m of prose.matchAll(PROSE_BRANCH)) {
    const quoted = m[2] ?? m[5];
    const bare = m[3]?.replace(/[./]+$/, "");
    if (validBranch(quoted)) fromProse = quoted;
    else if (validBranch(bare) && (/[/\-_\d]/.test(bare) || COMMON_BRANCHES.has(bare))) fromProse = bare;
  }
  return fromProse ?? null;
}

/** Lines of a text with the lines inside code fences blanked, so fenced code is never read as prose. */
function proseLines(text: string): string[] {
  let fence: string | null = null;
  return text.split(/\r?\n/).map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      return "";
    }
    return fence === null ? line : "";
  });
}

const PLAN_MARKER =
  /^\s*(?:[->+]\s+)?(#{1,6}\s+)?(?:\*\*|__)?\s*(?:next steps?|next up|next|plan|remaining (?:steps|work)|to-?do)\b\s*(?:\*\*|__)?\s*(:)?(?:\*\*|__)?\s*/i;
const NUMBERED = /^\s*\d{1,2}[.)]\s+\S/;
const INTENT = /\b(?:i'll|i will|let me|let's|going to|steps?|plan|next|then|remaining)\b/i;

/** Index of the first line that opens a plan (`Next:`, `Plan:`, `**Next steps:**`, `## Next steps`), or -1. */
function markerIndex(lines: readonly string[]): number {
  return lines.findIndex((line) => {
    const m = PLAN_MARKER.exec(line);
    return m !== null && (m[1] !== undefined || m[2] !== undefined);
  });
}

/**
 * The plan an assistant text states, from its marker line to the end, or from a numbered list (two
 * items or more) announced by an intent (`I'll`, `steps`, `then`, ...). Null when it states none.
 */
export function detectPlan(text: string): string | null {
  const lines = proseLines(text);
  const marker = markerIndex(lines);
  if (marker >= 0) return lines.slice(marker).join("\n").trim();
  const first = lines.findIndex((line) => NUMBERED.test(line));
  const numbered = lines.filter((line) => NUMBERED.test(line));
  if (first < 0 || numbered.length < 2) return null;
  if (!INTENT.test(lines.slice(0, first + 1).join("\n"))) return null;
  // An enumeration of cases or options is not a plan: most of its items must be actions.
  if (numbered.filter(isAction).length * 2 < numbered.length) return null;
  return lines
    .slice(Math.max(0, first - 1))
    .join("\n")
    .trim();
}

/**
 * A plan split at its marker (`Next:`, `Plan:`, `**Next steps:**`, `## Next steps`): the marker line's own
 * text after the marker (null when the plan has none) and the lines after it, fenced code blanked.
 */
export function planParts(plan: string): { head: string | null; body: string[] } {
  const lines = proseLines(plan);
  const marker = markerIndex(lines);
  if (marker < 0) return { head: null, body: lines };
  return { head: (lines[marker] ?? "").replace(PLAN_MARKER, ""), body: lines.slice(marker + 1) };
}

const DECISION =
  /\b(?:decided|decide to|chose|choosing|going with|go with|instead of|we'll use|we will use|i'll use|i will use|let's use|opted|opting|settled on)\b/i;

/** Sentences of a text that state a decision (`decided`, `chose`, `going with`, `instead of`, `we'll use`, ...), at most 5. */
export function detectDecisions(text: string): string[] {
  const sentences = proseLines(text).flatMap((line) =>
    line
      .replace(/^\s*(?:#{1,6}\s+|(?:\d{1,2}[.)]|[-*+•>])\s+)?/, "")
      .split(/(?<=[.!?])\s+(?=[A-Z`"'(*])/)
      .map((s) => s.replace(/\s+/g, " ").trim()),
  );
  const decisions = sentences.filter((s) => s.length >= 12 && DECISION.test(s));
  return [...new Set(decisions)].slice(0, 5);
}

const INTENT_SENTENCE =
  /^(?:(?:now|next|then|first|so)[,:]?\s+)?(?:i'll|i will|i'm going to|i am going to|let me|we'll|we will|let's)\s+(?:now\s+|next\s+|then\s+)?(.+)$/i;
const NOT_A_STEP = /^(?:know|be\b|help|try to help|do my best|see what|check in|get back|wait\b)/i;

/**
 * Steps an assistant text announces in single sentences ("I'll add the unique index next.", "Let me rerun the
 * tests."), as imperatives ("Add the unique index next", "Rerun the tests"), in order, at most `max`; courtesy
 * phrases ("let me know", "I'll be happy to") are not steps. For texts without a plan (`detectPlan`).
 */
export function statedIntents(text: string, max: number): string[] {
  const steps = proseLines(text).flatMap((line) =>
    line
      .split(/(?<=[.!?])\s+/)
      .map((sentence) => INTENT_SENTENCE.exec(sentence.replace(/\s+/g, " ").trim())?.[1] ?? "")
      .map((rest) => rest.replace(/[.!?:;,]+$/, "").trim())
      .filter((rest) => rest.split(" ").length >= 2 && !NOT_A_STEP.test(rest))
      .map((rest) => `${rest.charAt(0).toUpperCase()}${rest.slice(1)}`),
  );
  return [...new Set(steps)].slice(0, max);
}

/** Verbs that open an action: a plan's step starts with one (`Add the index`, `Re-run the tests`). */
const ACTION_VERB = new RegExp(
  `^(?:(?:first|then|next|finally|also|and|now)[,:]?\\s+)?(?:${[
    "add adjust apply ask assert build bump call catch change check clean clear close commit compare compile",
    "configure confirm convert copy cover create debug define delete deploy diff disable document download drop",
    "edit emit enable ensure examine exclude expose extend extract fetch fill filter find fix format generate grep",
    "guard handle hook implement import improve include inspect install introduce investigate keep limit link",
    "lint list load log look make map mark measure merge migrate mock modify move normalize note open optimize",
    "override parse pass patch pin point port print profile pull push put raise read rebase rebuild record",
    "reduce refactor register reload remove rename render reorder repeat replace reproduce request rerun reset",
    "resolve restart restore retry return reuse revert review rewrite run save search send separate set ship",
    "simplify skip sort split start stop store strip submit swap switch sync tag test throw trace track trim try",
    "unify update upgrade use validate verify wait wire wrap write",
  ]
    .join(" ")
    .split(" ")
    .join("|")}|re-run|re-test|re-check)\\b`,
  "i",
);
/** A path or a backticked span in a step: it names a file or a command. */
const NAMES_TARGET =
  /`[^`]+`|(?:^|\s)[\w.-]*\/[\w./-]+|\b[\w-]+\.(?:[cm]?[jt]sx?|py|go|rs|rb|java|sql|md|json|ya?ml|toml|sh)\b/;

/** Whether a plan's item is an action (it opens with a verb, or names a file or a command), not a case or an option. */
export function isAction(item: string): boolean {
  const t = item
    .replace(/^\s*(?:\d{1,2}[.)]|[-*+•])\s+/, "")
    .replace(/^\s*\[[ xX]\]\s*/, "")
    .replace(/\*\*|__/g, "")
    .trim();
  return ACTION_VERB.test(t) || NAMES_TARGET.test(t);
}

/** `Plan: X, then Y`, `First X, then Y`, `Next: X`: the plan a user states, or null. */
const USER_PLAN = /(?:^|\n)\s*(?:#{1,6}\s+)?(?:\*\*)?(?:plan|next steps?|steps|todo)(?:\*\*)?\s*:[\s\S]*$/i;
const FIRST_THEN = /\b[Ff]irst,?\s+[^.!?\n]{3,200}?,?\s+then\s+[^.!?\n]{3,300}/;

/**
 * The plan a user's message states: from a `Plan:` / `Next steps:` marker on, or a `first ..., then ...`
 * sentence (as `Plan: ...`), or null.
 */
export function detectUserPlan(text: string): string | null {
  const marked = USER_PLAN.exec(text);
  if (marked !== null) return marked[0].trim();
  const sequence = FIRST_THEN.exec(text);
  return sequence === null ? null : `Plan: ${sequence[0].trim()}`;
}

const SYMBOL_DEF =
  /\b(?:def|class|function|fn|func|interface|type|struct|enum|trait|impl)\s+(?:\([^)]*\)\s*)?([A-Za-z_][\w]*)|\b(?:const|let|var)\s+([A-Za-z_]\w*)\s*=\s*(?:async\s*)?(?:\(|function)/g;

/** Functions, classes and types an edit's new text defines or changes (`def save`, `class QuerySet`), at most 5. */
export function editedSymbols(params: Record<string, unknown>): string[] {
  const texts = [params.new_str, params.newText, params.new_string, params.content, params.file_text]
    .filter((v): v is string => typeof v === "string")
    .map((t) => t.slice(0, 20_000));
  const found: string[] = [];
  for (const t of texts) {
    for (const m of t.matchAll(SYMBOL_DEF)) {
      const name = m[1] ?? m[2];
      if (name !== undefined && name.length >= 3 && !found.includes(name)) found.push(name);
    }
  }
  return found.slice(0, 5);
}
