import { COMMAND_RULES } from "./redact-commands.ts";
import { CONTEXT_RULES } from "./redact-context.ts";
import {
  compileRules,
  type Deadline,
  DeadlineExceeded,
  type Finding,
  findSecrets,
  mayFindSecrets,
  type Span,
} from "./redact-engine.ts";
import { fold, foldedFindings, holdsInvisible, mayFold, unite } from "./redact-fold.ts";
import { JudgedBlocks, rulesVersion } from "./redact-judged.ts";
import { REDACTION_KINDS, type RedactionKind } from "./redact-kinds.ts";
import { LABEL_RULES, labelStrength } from "./redact-labels.ts";
import { classifyName, isPassphrase, looksSecretFor, type Strength } from "./redact-names.ts";
import { PAIR_RULES } from "./redact-pairs.ts";
import { PROVIDER_RULES } from "./redact-providers.ts";
import { carryMarkers, markersIn } from "./redact-spans.ts";
import { linesAround, type Scanned, type Windows, windowsAfter } from "./redact-windows.ts";

/**
 * Secret redaction: the pure pass every string goes through before the store writes it to disk, and every
 * text read back from a daily log goes through again.
 *
 * Each secret is replaced by `[REDACTED:<kind>]` and counted by kind. Rules run from the most specific
 * (provider token formats, `redact-providers.ts`) to the most generic (context: URLs, headers, flags, calls
 * and `KEY=value` assignments, `redact-context.ts`; tools' password arguments, `redact-commands.ts`; prose
 * labels in several languages, `redact-labels.ts`), so a GitHub token assigned to `GITHUB_TOKEN=` is reported
 * as `github-token`. Context around a secret is kept: the name of an assignment, the scheme, user, host and
 * path of a URL, the `Authorization: Bearer ` of a header, the command and flag of a command line.
 *
 * Markers already in the text are never matched again, and `redact` applies its rules until a pass finds
 * nothing, so `redact(redact(x)).text` is `redact(x).text` with a total of 0. Rules run only on the lines
 * around their trigger literals (`redact-engine.ts`); every pattern is free of nested ambiguous quantifiers
 * and values are capped at 512 characters, so time stays near-linear in the length of the text.
 */

/** Number of replacements per kind; kinds that did not occur are absent. */
export { REDACTION_KINDS, type RedactionKind } from "./redact-kinds.ts";

export type RedactionCounts = Partial<Record<RedactionKind, number>>;

/** The sum of two redaction counts, by kind. */
export function addCounts(a: RedactionCounts, b: RedactionCounts): RedactionCounts {
  const out: RedactionCounts = { ...a };
  for (const kind of REDACTION_KINDS) {
    const n = b[kind];
    if (n !== undefined) out[kind] = (out[kind] ?? 0) + n;
  }
  return out;
}

/**
 * The redacted text, the replacements per kind and their sum. `unchecked` is set when a deadline passed
 * before the text was judged: the text is then `UNCHECKED_MARKER`, nothing of the input is kept.
 */
export interface Redaction {
  text: string;
  counts: RedactionCounts;
  total: number;
  unchecked?: true;
}

export type { Deadline } from "./redact-engine.ts";

/** Options of `redact` and `redactDeep`. */
export interface RedactOptions {
  /**
   * Give up at this time and fail closed: what was not judged in time is replaced by `UNCHECKED_MARKER`
   * (the result says `unchecked: true`), never returned as it was. Without it, redaction always finishes;
   * its time is linear in the length of the text.
   */
  readonly deadline?: Deadline;
  /**
   * Remember the texts found clean, and skip those remembered (`redactDeep` only): for a value written
   * again and again with mostly the same strings (a session's state). Reading a log does not ask for it:
   * there the texts rarely repeat, and remembering them costs more than it spares.
   */
  readonly remember?: boolean;
}

/** What replaces a text that could not be judged before its deadline. */
export const UNCHECKED_MARKER = "[REDACTED:unchecked]";

/** The text that replaces a secret of `kind`: `[REDACTED:github-token]`. */
export function redactionMarker(kind: RedactionKind): string {
  return `[REDACTED:${kind}]`;
}

const RULES = compileRules([
  ...PROVIDER_RULES,
  ...CONTEXT_RULES,
  ...COMMAND_RULES,
  ...PAIR_RULES,
  ...LABEL_RULES,
]);

/**
 * The version of the rules `redact` applies: changes whenever a rule or a judgement of names and values
 * changes (see `redact-judged.ts`). A block remembered clean under another version is judged again.
 */
export const REDACTION_RULES_VERSION = rulesVersion(
  RULES.rules,
  [redactText, findAll, redactValue, strengthOfName, linesAround, foldedFindings, fold].map(String),
);

/** An empty memory of the blocks judged clean by the rules `redact` applies (see `parseDailyLog`). */
export function judgedBlocks(): JudgedBlocks {
  return new JudgedBlocks(REDACTION_RULES_VERSION);
}

/**
 * Replace every secret in `text` by `[REDACTED:<kind>]`. Pure.
 *
 * Recognised (see `REDACTION_KINDS` and the rule modules for the formats): provider tokens by their
 * published formats (OpenAI and compatible `sk-`, Anthropic, OpenRouter, GitHub, GitLab, Slack, Stripe, npm,
 * Google, AWS, Hugging Face, Groq, xAI, Telegram, Discord, Twilio, SendGrid, … and a long tail reported as
 * `service-token`), JWTs, PEM/PuTTY/age private keys, credentials in URLs and `Authorization` headers,
 * values of command-line flags (`--token X`, `sshpass -p X`, `mysql -pX`, `curl -u user:X`), random literals
 * passed to login and client calls, `NAME=value` assignments (also with the value on the next line), and
 * labelled values in prose (`the password is X`, `密码：X`, `пароль: X`, …).
 *
 * Assignment and label values are judged by the name: password/secret names take any value of 6+
 * characters that is not a number (a PIN of 6+ digits is), placeholder, identifier, env var name, path or
 * URL; token/key/auth/credential/signature names also need 16+ characters mixing two of lower, upper and
 * digits (redact-names.ts `looksSecret`).
 */
export function redact(text: string, options: RedactOptions = {}): Redaction {
  try {
    return redactText(text, options.deadline);
  } catch (error) {
    if (error instanceof DeadlineExceeded)
      return { text: UNCHECKED_MARKER, counts: {}, total: 0, unchecked: true };
    throw error;
  }
}

/**
 * What the rules find in `text` as written (`findSecrets`, with its `markers` and `scanned`) and, on the
 * lines holding characters that hide a secret, folded (`redact-fold.ts`): the union of the two readings,
 * except that a finding of the written reading holding a character that shows nothing is kept only where
 * the folded reading finds something too (`password: ` U+200B `see vault` is a placeholder, as it reads).
 */
function findAll(
  text: string,
  deadline: Deadline | undefined,
  markers?: readonly Span[],
  scanned?: Scanned,
): Finding[] {
  const written = findSecrets(text, RULES, deadline, markers, scanned);
  if (!mayFold(text)) return written;
  const folded = foldedFindings(text, RULES.maxReach + 1, (f) => findSecrets(f, RULES, deadline));
  const kept = written.filter(
    (w) =>
      !holdsInvisible(text.slice(w.start, w.end)) || folded.some((f) => f.start < w.end && w.start < f.end),
  );
  return folded.length === 0 && kept.length === written.length ? written : unite(kept, folded);
}

function redactText(text: string, deadline: Deadline | undefined): Redaction {
  const counts: RedactionCounts = {};
  let total = 0;
  let current = text;
  let regions: Span[] = [{ start: 0, end: text.length }];
  // The markers in `current`, when known: found once, then carried from pass to pass (see `carryMarkers`).
  let markers: Span[] | undefined;
  // What the scan of the first pass saw (when it read the whole text), and the windows of the next pass.
  const witnesses: number[] = [];
  let windows: Windows | undefined;
  // Each productive pass turns at least one unmarked character into a marker, so this terminates. Text
  // away from the markers a pass wrote is as the pass saw it, so the next pass only reads the lines around
  // them (as far as any rule reaches), which keeps a text with a few secrets at about one pass.
  while (regions.length > 0) {
    const whole = isWhole(regions, current);
    if (whole) markers ??= markersIn(current);
    const found = whole
      ? findAll(current, deadline, markers, total === 0 ? { witnesses } : { windows })
      : regions.flatMap((r) =>
          findAll(current.slice(r.start, r.end), deadline).map((f) => ({
            kind: f.kind,
            start: f.start + r.start,
            end: f.end + r.start,
          })),
        );
    if (found.length === 0) break;
    let out = "";
    let copied = 0;
    const written: Span[] = [];
    for (const { start, end, kind } of found) {
      out += current.slice(copied, start);
      const marker = MARKERS.get(kind) ?? redactionMarker(kind);
      written.push({ start: out.length, end: out.length + marker.length });
      out += marker;
      copied = end;
      counts[kind] = (counts[kind] ?? 0) + 1;
    }
    total += found.length;
    // A text that held no markers holds those just written (most texts).
    markers = markers?.length === 0 ? written : markers && carryMarkers(markers, found, written);
    const before = current;
    current = out + current.slice(copied);
    regions = linesAround(current, written, RULES.maxReach + 1);
    // Only after the first pass, over the whole text both times (the rest is rare).
    windows =
      whole && total === found.length && markers !== undefined && isWhole(regions, current)
        ? windowsAfter(before, current, RULES, markers, found, written, witnesses)
        : undefined;
  }
  return { text: current, counts, total };
}

/** Whether `regions` are the whole of `text`. */
function isWhole(regions: readonly Span[], text: string): boolean {
  return regions.length === 1 && regions[0]?.start === 0 && regions[0].end === text.length;
}

/** The marker of each kind, made once. */
const MARKERS: ReadonlyMap<RedactionKind, string> = new Map(
  REDACTION_KINDS.map((kind) => [kind, redactionMarker(kind)]),
);

/** How two neighbouring fields are joined to be judged as the line they were read from. */
const JOIN = " — ";

/** How a rebuilt object holds a `__proto__` key: as an own data property. */
const DATA = { enumerable: true, writable: true, configurable: true } as const;

/** Property names that label the `value` beside them: `{ label: "staging token", value: "…" }`. */
const LABEL_KEYS = ["label", "name", "key"] as const;

/**
 * `redact` over a JSON-like value (acyclic): every string in arrays and plain objects is redacted, numbers,
 * booleans, null and non-plain objects are kept as they are. Object keys are redacted as text too (a tool's
 * arguments may hold a token as a key); two keys that redact to the same text keep the last value. A string
 * property whose key is a secret name (`password`, `apiKey`; or the `label`/`name`/`key` of a `{ label,
 * value }` pair, in any language the label rules know: `пароль`, `密码`, `senha`) is judged as an assignment
 * of that name, and a secret-looking value is replaced whole (`secret-assignment`); the `label`/`name`/`key`
 * strings themselves are only redacted as text. Two string fields side by side are also judged joined
 * (`text — rationale`), so a label a reader split from its value is read with it. Counts are summed over
 * all strings. Returns a new value; the input is not changed. With a `deadline` that passes, every string
 * (keys included) becomes `UNCHECKED_MARKER` and the result says `unchecked: true`.
 */
export function redactDeep<T>(
  value: T,
  options: RedactOptions = {},
): { value: T; counts: RedactionCounts; total: number; unchecked?: true } {
  try {
    return redactValue(value, options.deadline, options.remember === true);
  } catch (error) {
    if (!(error instanceof DeadlineExceeded)) throw error;
    return { value: replaceStrings(value, UNCHECKED_MARKER) as T, counts: {}, total: 0, unchecked: true };
  }
}

/**
 * Texts `redactDeep` (asked to `remember`) already read in this process and found nothing in, up to
 * `CLEAN_CHARS` characters in all: when full, it is emptied and fills again (dropping the oldest one by one
 * would walk the set's deleted entries at every insertion). The rules are fixed for the life of the process:
 * a session's state is written again at every turn with mostly the same strings, and only the new ones are
 * read. What a string's name says (`password: …`) is judged every time, outside this.
 */
const CLEAN_CHARS = 2_000_000;
const CLEAN_TEXT_MAX = 65_536;
const clean = new Set<string>();
let cleanChars = 0;

function rememberClean(text: string): void {
  if (text.length > CLEAN_TEXT_MAX || clean.has(text)) return;
  if (cleanChars + text.length > CLEAN_CHARS) {
    clean.clear();
    cleanChars = 0;
  }
  clean.add(text);
  cleanChars += text.length;
}

function redactValue<T>(
  value: T,
  deadline: Deadline | undefined,
  remember: boolean,
): { value: T; counts: RedactionCounts; total: number } {
  const counts: RedactionCounts = {};
  let total = 0;
  const add = (kind: RedactionKind, n: number) => {
    if (n === 0) return;
    counts[kind] = (counts[kind] ?? 0) + n;
    total += n;
  };
  // One trigger scan over every string decides which of them `redact` must read; the others (most
  // fields of a snapshot) hold nothing it could find, so they are kept as they are.
  const texts: string[] = [];
  collectStrings(value, texts);
  const unknown = remember ? texts.filter((text) => !clean.has(text)) : texts;
  const marked = mayFindSecrets(unknown, RULES);
  const toRedact = new Set<string>();
  for (const [i, text] of unknown.entries()) {
    if (marked[i] === true || mayFold(text)) toRedact.add(text);
    else if (remember) rememberClean(text);
  }
  const redactString = (text: string, name: Name | undefined): string => {
    let redacted = text;
    if (toRedact.has(text)) {
      const result = redactText(text, deadline);
      if (result.total > 0) for (const kind of REDACTION_KINDS) add(kind, result.counts[kind] ?? 0);
      else if (remember) rememberClean(text);
      redacted = result.text;
    }
    const strength = strengthOfName(name);
    if (
      strength !== undefined &&
      (looksSecretFor(redacted, strength) || (strength === "strong" && isPassphrase(redacted)))
    ) {
      add("secret-assignment", 1);
      return redactionMarker("secret-assignment");
    }
    return redacted;
  };
  const redactKey = (key: string): string => {
    const result = redactText(key, deadline);
    if (result.total > 0) for (const kind of REDACTION_KINDS) add(kind, result.counts[kind] ?? 0);
    else if (remember) rememberClean(key);
    return result.text;
  };
  const walk = (node: unknown, name: Name | undefined): unknown => {
    if (typeof node === "string") return redactString(node, name);
    if (Array.isArray(node)) return node.map((item) => walk(item, undefined));
    if (!isPlainObject(node)) return node;
    let label: string | undefined;
    for (const k of LABEL_KEYS) if (label === undefined && typeof node[k] === "string") label = node[k];
    const keys = Object.keys(node); // beside `values`: no entry array per property
    const values: unknown[] = new Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      // A label names the value beside it; it is not itself the value of a secret called `key`.
      const labelKey = key === "label" || key === "name" || key === "key";
      const name = key === "value" && label !== undefined ? { text: label, label: true } : undefined;
      if (toRedact.has(key)) keys[i] = redactKey(key);
      values[i] = walk(node[key], name ?? (labelKey ? undefined : { text: key, label: false }));
    }
    joinNeighbours(values);
    const out: Record<string, unknown> = {};
    // A `__proto__` key from JSON stays data: defined, as `Object.fromEntries` does, not assigned.
    for (let i = 0; i < keys.length; i++)
      if (keys[i] === "__proto__") Object.defineProperty(out, "__proto__", { ...DATA, value: values[i] });
      else out[keys[i] as string] = values[i];
    return out;
  };
  /**
   * Two string fields side by side may be one line a reader split (`text — rationale`, `path: note`):
   * `Пароль от сервера — X` read as a decision puts the label in one field and the value in the next. Each
   * such pair is judged as the line it came from, and what is found in the second field is replaced there.
   */
  const joinNeighbours = (values: unknown[]) => {
    for (let i = 0; i + 1 < values.length; i++) {
      const a = values[i];
      const b = values[i + 1];
      if (typeof a !== "string" || typeof b !== "string" || a === "" || b === "") continue;
      const joined = `${a}${JOIN}${b}`;
      if (remember && clean.has(joined)) continue;
      if (mayFindSecrets([joined], RULES)[0] !== true) {
        if (remember) rememberClean(joined);
        continue;
      }
      const result = redactText(joined, deadline);
      if (result.total === 0 && remember) rememberClean(joined);
      if (result.total === 0 || !result.text.startsWith(`${a}${JOIN}`)) continue;
      values[i + 1] = result.text.slice(a.length + JOIN.length);
      for (const kind of REDACTION_KINDS) add(kind, result.counts[kind] ?? 0);
    }
  };
  // `walk` rebuilds strings, arrays and plain objects with the same shape, so the result is still a T.
  return { value: walk(value, undefined) as T, counts, total };
}

/** `node` with every string `redactDeep` visits replaced by `marker` (the n-th key by `marker` and n). */
function replaceStrings(node: unknown, marker: string): unknown {
  if (typeof node === "string") return marker;
  if (Array.isArray(node)) return node.map((item) => replaceStrings(item, marker));
  if (!isPlainObject(node)) return node;
  return Object.fromEntries(
    Object.values(node).map((child, i) => [`${marker}${i}`, replaceStrings(child, marker)]),
  );
}

/** The name a string stands under: an object key, or the label of a `{ label, value }` pair. */
interface Name {
  readonly text: string;
  readonly label: boolean;
}

/**
 * How strongly `name` says its value is a secret: as an assignment name (`password`, `apiKey`), and for a
 * label, also as a label in any language `redact` knows (`пароль`, `服务器密码`, `senha do banco`), so a
 * label kept apart from its value is read with it wherever it stands.
 */
function strengthOfName(name: Name | undefined): Strength | undefined {
  if (name === undefined) return undefined;
  // A marker in a label (`API_TOKEN=[REDACTED:secret-assignment]`) is not a word of the label.
  const text = name.text.replace(/\[REDACTED:[a-z0-9-]+\]/g, " ");
  return classifyName(text) ?? (name.label ? labelStrength(text) : undefined);
}

/** Every string `redactDeep` visits in `node`, appended to `out`. */
function collectStrings(node: unknown, out: string[]): void {
  if (typeof node === "string") out.push(node);
  else if (Array.isArray(node)) for (const item of node) collectStrings(item, out);
  else if (isPlainObject(node))
    for (const [key, child] of Object.entries(node)) {
      out.push(key);
      collectStrings(child, out);
    }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
