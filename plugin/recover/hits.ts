/**
 * Search hits as text: for the model (the `big_memory_recall` tool), fenced with a nonce like a restore;
 * for the user (`/big-memory search`, `recall WORDS`), the same lines neutralised and unfenced. Pure.
 */
import { closeTag, fenceRules, neutralise, openTag } from "./fence.ts";
import { attr, shown } from "./inject.ts";

/** One search hit, as the caller read it; every string is untrusted but `age`. */
export interface HitView {
  id: string;
  timestamp: string;
  /** How long ago it was saved, in words (`2 h ago`). */
  age: string;
  name: string | null;
  goal: string;
  snippet: string;
}

/** The hits of one query and the nonce of their fence. */
export interface HitsInput {
  query: string;
  hits: HitView[];
  nonce: string;
}

/** Caps in estimated tokens: a hit's goal and its snippet; the query. */
const HIT_CAP = 60;
const QUERY_CAP = 40;

const value = (v: string): string => shown(v, HIT_CAP);

function lines(hits: HitView[]): string[] {
  return hits.flatMap((h, i) => {
    const name = h.name === null ? "" : `, "${attr(h.name)}"`;
    const line = `${i + 1}. ${attr(h.id)} (${attr(h.age)}${name}): ${value(h.goal) || "(no goal)"}`;
    const snippet = value(h.snippet);
    // A match in the goal is the goal on the line above: not said twice.
    const said = snippet === "" || value(h.goal).replace(/…$/, "").includes(snippet.replace(/…$/, ""));
    return [line, ...(said ? [] : [`   match: ${snippet}`])].map(neutralise);
  });
}

/**
 * The hits, best first, as `1. <id> (<age>[, "<name>"]): <goal>` with `   match: <snippet>` under each
 * whose snippet is not part of its goal (goal and snippet cut to 60 tokens, the query to 40). `text`, for the model: a fixed preamble naming the nonce, the lines
 * inside `<big-memory-snapshot-<nonce> results="N" query="…">` … `</big-memory-snapshot-<nonce>>`, and the
 * fixed line `Call big_memory_recall with an id for the whole snapshot.`; `reply`, for the user:
 * `Snapshots matching "<query>", best first:` and the lines. Throws when `nonce` is not 16 hex digits.
 */
export function renderHits(input: HitsInput): { text: string; reply: string } {
  const body = lines(input.hits);
  const n = input.hits.length;
  const query = shown(input.query, QUERY_CAP);
  const text = [
    `big-memory found ${n} saved snapshot${n === 1 ? "" : "s"} matching your search, best first. ${fenceRules(input.nonce)}`,
    openTag(input.nonce, [
      ["results", String(n)],
      ["query", query],
    ]),
    ...body,
    closeTag(input.nonce),
    "Call big_memory_recall with an id for the whole snapshot.",
  ].join("\n");
  const reply = [`Snapshots matching "${query}", best first:`, ...body].join("\n");
  return { text, reply };
}
