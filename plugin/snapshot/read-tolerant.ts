import type { Code, RootContent } from "mdast";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { checksumOf } from "./checksum.ts";
import { decode } from "./escape.ts";
import { END_MARKER, START_MARKER_PREFIX } from "./format.ts";
import { buildContent, type RawSection, trimSpaces } from "./sections.ts";
import { type Diagnostic, SNAPSHOT_VERSION, Snapshot, type Verified } from "./snapshot.ts";

/**
 * The tolerant reader: parses a stretch of a daily log with remark so that markers and headings
 * inside fenced code stay code, then reads each block's sections line by line. Accepts what people
 * and models write following the skill: CRLF, `-` `*` or numbered lists, sections missing or out
 * of order, unknown sections, `none`, no checksum.
 */

/** A block read by the tolerant reader, with its 1-based line in the stretch. */
export interface TolerantRead {
  snapshot: Snapshot;
  line: number;
  verified: Verified;
  checksum: string | null;
}

interface OpenBlock {
  line: number;
  meta: Map<string, string>;
  sections: { heading: string; startLine: number; codes: Code[] }[];
}

const START = /^<!-- BIG-MEMORY-SNAPSHOT v(\d+) -->$/;
const META = /^<!--[ \t]*([a-z-]+)[ \t]*:[ \t]*([\s\S]*?)[ \t]*-->$/;
const ID = /^(\d{4}-\d{2}-\d{2})-\d{2,}$/;

const parser = unified().use(remarkParse);

function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** Heading text after `###` and one optional `[SNAPSHOT]` tag. */
function headingText(sourceLine: string, canonical: boolean): string {
  const after = sourceLine.replace(/^ {0,3}###(?:[ \t]+|$)/, "");
  if (canonical) return after.startsWith("[SNAPSHOT] ") ? after.slice(11) : after;
  return after
    .replace(/[ \t]+#+[ \t]*$/, "")
    .replace(/^\[SNAPSHOT\][ \t]*/i, "")
    .trim();
}

/**
 * Reads every block in `text`. `firstLine` is the file line of the text's first line, `file` names
 * the file in diagnostics.
 */
export function readTolerant(
  text: string,
  file: string,
  firstLine: number,
): { blocks: TolerantRead[]; diagnostics: Diagnostic[] } {
  const lines = text.split("\n").map(stripCr);
  const blocks: TolerantRead[] = [];
  const diagnostics: Diagnostic[] = [];
  const at = (line: number) => line + firstLine - 1;
  let open: OpenBlock | null = null;

  const finish = (block: OpenBlock, endLine: number) => {
    const canonical = block.meta.has("checksum");
    if (canonical) for (const [k, v] of block.meta) block.meta.set(k, decode(v));
    const sections: RawSection[] = block.sections.map((s, i) => {
      const stop = (block.sections[i + 1]?.startLine ?? endLine) - 1;
      const body = lines.slice(s.startLine, stop);
      const raw: RawSection = { heading: headingText(lines[s.startLine - 1] ?? "", canonical), lines: body };
      const code = s.codes.length === 1 ? s.codes[0] : undefined;
      const from = code?.position?.start.line ?? 0;
      const to = code?.position?.end.line ?? 0;
      // Body line j is file line s.startLine + 1 + j: only code and blank lines means "just a fence".
      if (
        code !== undefined &&
        body.every((l, j) => l.trim() === "" || (s.startLine + 1 + j >= from && s.startLine + 1 + j <= to))
      ) {
        raw.fencedCode = code.value.replace(/\r\n?/g, "\n");
      }
      return raw;
    });
    const id = block.meta.get("snapshot-id");
    if (id === undefined || !ID.test(id)) {
      diagnostics.push({
        file,
        line: at(block.line),
        message:
          id === undefined
            ? "snapshot block has no snapshot-id (expected <!-- snapshot-id: YYYY-MM-DD-NN -->)"
            : `snapshot block has an invalid snapshot-id "${id}" (expected YYYY-MM-DD-NN)`,
      });
      return;
    }
    const tombstone = block.meta.get("tombstone");
    const candidate = {
      version: SNAPSHOT_VERSION,
      id,
      timestamp: block.meta.get("timestamp") ?? `${ID.exec(id)?.[1] ?? ""}T00:00:00`,
      session: block.meta.get("session") ?? null,
      agent: block.meta.get("agent") ?? null,
      trigger: block.meta.get("trigger") ?? null,
      name: block.meta.get("name") ?? null,
      parent: block.meta.get("parent") ?? null,
      tombstone: tombstone === "yes",
      ...buildContent(sections, canonical),
    };
    const parsed = Snapshot.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      diagnostics.push({
        file,
        line: at(block.line),
        message: `snapshot ${id}: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`,
      });
      return;
    }
    const checksum = block.meta.get("checksum") ?? null;
    blocks.push({
      snapshot: parsed.data,
      line: at(block.line),
      verified: checksum === null ? null : checksumOf(parsed.data) === checksum,
      checksum,
    });
  };

  const tree = parser.parse(text);
  for (const node of tree.children as RootContent[]) {
    const start = node.position?.start.line ?? 0;
    if (node.type === "html") {
      const htmlLines = node.value.split("\n").map((l) => trimSpaces(stripCr(l)));
      for (let k = 0; k < htmlLines.length; k++) {
        const l = htmlLines[k] ?? "";
        const lineNo = start + k;
        if (l.startsWith(START_MARKER_PREFIX)) {
          if (open !== null) {
            diagnostics.push({
              file,
              line: at(open.line),
              message: `snapshot block has no end marker (expected ${END_MARKER})`,
            });
          }
          const version = START.exec(l)?.[1];
          if (version !== String(SNAPSHOT_VERSION)) {
            diagnostics.push({
              file,
              line: at(lineNo),
              message: `unknown snapshot version ${version === undefined ? `in "${l}"` : `v${version}`} (expected v${SNAPSHOT_VERSION})`,
            });
            open = null;
            continue;
          }
          open = { line: lineNo, meta: new Map(), sections: [] };
        } else if (l === END_MARKER) {
          if (open !== null) finish(open, lineNo);
          open = null;
        } else if (open !== null && open.sections.length === 0) {
          const m = META.exec(l);
          if (m?.[1] !== undefined && !open.meta.has(m[1])) open.meta.set(m[1], m[2] ?? "");
        }
      }
      continue;
    }
    if (open === null) continue;
    if (node.type === "heading" && node.depth === 3) {
      open.sections.push({ heading: "", startLine: start, codes: [] });
    } else if (node.type === "code") {
      open.sections[open.sections.length - 1]?.codes.push(node);
    }
  }
  if (open !== null) {
    diagnostics.push({
      file,
      line: at(open.line),
      message: `snapshot block has no end marker (expected ${END_MARKER})`,
    });
  }
  return { blocks, diagnostics };
}
