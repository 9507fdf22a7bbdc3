import { SECTION_BY_HEADING, type SectionKey } from "../../plugin/snapshot/format.ts";

/**
 * A model that follows the flush prompt (plugin/capture/flush-prompt.ts) to the letter and knows nothing
 * else: it takes the markdown template the prompt gives, copies its marker and metadata lines, and fills
 * each section from the plugin's draft printed in the prompt ("What big-memory observed ..."), writing
 * "none" where the draft has nothing. It stands for a compliant model that accepts the draft as given.
 */

export interface FlushWrite {
  /** Workspace-relative daily log the prompt names. */
  file: string;
  /** The block to append, template lines filled. */
  block: string;
}

interface Draft {
  goal: string;
  state: { phase: string; branch: string; blocked: string; progress: string };
  lists: Record<"files" | "names" | "decisions" | "code" | "blockers" | "next" | "activity", string[]>;
}

const LIST_HEADS = {
  "Files:": "files",
  "Names:": "names",
  "Decisions:": "decisions",
  "Code:": "code",
  "Blockers:": "blockers",
  "Next:": "next",
  "Recent Activity:": "activity",
} as const;

function draftOf(prompt: string): Draft | null {
  const at = prompt.indexOf("What big-memory observed in this session so far");
  if (at < 0) return null;
  const draft: Draft = {
    goal: "",
    state: { phase: "", branch: "", blocked: "", progress: "" },
    lists: { files: [], names: [], decisions: [], code: [], blockers: [], next: [], activity: [] },
  };
  let list: keyof Draft["lists"] | null = null;
  for (const line of prompt.slice(at).split("\n").slice(1)) {
    if (line.startsWith("Goal: ")) draft.goal = line.slice(6).trim();
    else if (line.startsWith("State: ")) {
      const m = /^State: phase (.*); branch (.*); blocked (.*); progress (.*)$/.exec(line);
      if (m !== null)
        draft.state = { phase: m[1] ?? "", branch: m[2] ?? "", blocked: m[3] ?? "", progress: m[4] ?? "" };
    } else if (line in LIST_HEADS) list = LIST_HEADS[line as keyof typeof LIST_HEADS];
    else if (list !== null && line.startsWith("- ")) draft.lists[list].push(line.slice(2));
  }
  return draft;
}

const known = (v: string) => (v === "?" || v === "" ? "n/a" : v);

function sectionLines(key: SectionKey, draft: Draft | null): string[] {
  if (draft === null) return ["none"];
  const none = (items: string[], f: (s: string, i: number) => string) =>
    items.length === 0 ? ["none"] : items.map(f);
  switch (key) {
    case "goal":
      return [draft.goal === "" || draft.goal === "?" ? "none" : draft.goal];
    case "state":
      return [
        `- Phase: ${known(draft.state.phase)}`,
        `- Branch: ${known(draft.state.branch)}`,
        `- Blocked: ${known(draft.state.blocked)}`,
        `- Progress: ${known(draft.state.progress)}`,
      ];
    case "files":
      return none(draft.lists.files, (f) => {
        const [path, ...note] = f.split(" -- ");
        return `- \`${path}\`${note.length === 0 ? "" : ` -- ${note.join(" -- ")}`}`;
      });
    case "names":
      return none(draft.lists.names, (n) => {
        const i = n.indexOf(": ");
        return i < 0 ? `- \`${n}\`` : `- ${n.slice(0, i)}: \`${n.slice(i + 2)}\``;
      });
    case "decisions":
      return none(draft.lists.decisions, (d, i) => `${i + 1}. ${d}`);
    case "code":
      return draft.lists.code.length === 0 ? ["none"] : ["```", ...draft.lists.code, "```"];
    case "blockers":
      return none(draft.lists.blockers, (b) => `- ${b}`);
    case "next":
      return none(draft.lists.next, (s, i) => `${i + 1}. ${s}`);
    default:
      return ["none"];
  }
}

/** What a compliant model appends for `prompt`; throws when the prompt has no file or template to follow. */
export function followFlushPrompt(prompt: string): FlushWrite {
  const file = /APPEND one task snapshot to `([^`]+)`/.exec(prompt)?.[1];
  const template = /```markdown\n([\s\S]*?)\n```/.exec(prompt)?.[1];
  if (file === undefined || template === undefined)
    throw new Error("flush prompt: expected a daily log path and a ```markdown template, found neither");
  const draft = draftOf(prompt);
  const out: string[] = [];
  let section: SectionKey | null = null;
  let extra = false;
  for (const line of template.split("\n")) {
    const heading = /^### \[SNAPSHOT\] (.+)$/.exec(line);
    if (heading !== null) {
      section = SECTION_BY_HEADING.get((heading[1] ?? "").toLowerCase()) ?? null;
      // The template's extra section (Recent Activity) is filled from the draft's line of that name.
      extra = section === null;
      const activity = draft?.lists.activity ?? [];
      out.push(
        line,
        ...(section !== null
          ? sectionLines(section, draft)
          : [activity.length === 0 ? "none" : activity.join(" ")]),
      );
      continue;
    }
    if ((section !== null || extra) && line.trim() !== "" && !line.startsWith("<!--")) continue;
    if (line.trim() === "" || line.startsWith("<!--")) {
      section = null;
      extra = false;
    }
    out.push(line);
  }
  return { file, block: `\n${out.join("\n")}\n` };
}
