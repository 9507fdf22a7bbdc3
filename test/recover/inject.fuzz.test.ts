import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { closeTag, fenceRules, fenceSites, fold } from "../../plugin/recover/fence.ts";
import { type RestoreReason, renderRestore } from "../../plugin/recover/inject.ts";
import { hostileRestoreArb } from "./arbitraries.ts";

/**
 * The restore text against 10,000 hostile snapshots: a fuzz test of its own (the `fuzz` project, run by
 * `npm test`), so that `npm run test:unit` stays quick. inject.test.ts and fence.test.ts hold the rest.
 */

/** The first sentence of the preamble, by reason, as the model must read it. */
const LEADS: Record<RestoreReason, string> = {
  compaction: "big-memory restored your working notes, saved before your context was compacted.",
  reset: "big-memory restored your working notes, saved before the session was reset.",
  amnesia:
    "big-memory restored the working notes that best match the user's message, which suggests you lost your place.",
  resume: "big-memory restored the working notes of the checkpoint the user asked to resume.",
  recall: "big-memory recalled these working notes, saved earlier, at your request.",
};

const tell = (verb: string, step: string): string =>
  `Tell the user in one line that you ${verb} SNAPSHOT and what its goal is, as written in the notes above. ${step}`;
const where = (verb: string, answer: string, step: string): string =>
  `Tell the user in one line where you are: that you ${verb} SNAPSHOT, with its goal, last progress and next ` +
  `action as written in the notes above ("not recorded" for any the notes lack). ${answer}${step}`;
const FIRST = "Then continue from the first next step in the notes without redoing finished work.";
const NEXT = "Then continue from the next action in the notes without redoing finished work.";
const TASK = "Then continue the task without redoing finished work.";
const ANSWER = "Answer the user's message from these notes. ";

/** Every instruction line allowed after the fence, the snapshot's id and time replaced by `SNAPSHOT`. */
const INSTRUCTIONS: Record<RestoreReason, string[]> = {
  compaction: [tell("restored", FIRST), tell("restored", TASK)],
  reset: [tell("restored", FIRST), tell("restored", TASK)],
  recall: [tell("recalled", FIRST), tell("recalled", TASK)],
  amnesia: [where("restored", ANSWER, NEXT), where("restored", ANSWER, TASK)],
  resume: [where("resumed", "", NEXT), where("resumed", "", TASK)],
};

const SNAPSHOT_REF =
  /(?<=that you \w+ )(?:snapshot (\d{4}-\d{2}-\d{2}-\d{2,})|a saved snapshot)(?: \(saved (\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})?)\))?/u;
// Controls but tab and line feed, format characters (bidi, zero-width, tags), variation selectors.
const INVISIBLE = /[^\P{Cc}\t\n]|\p{Cf}|\p{Variation_Selector}/u;

describe("renderRestore against planted text", () => {
  it("lets nothing escape the fence in 10,000 hostile snapshots", () => {
    fc.assert(
      fc.property(hostileRestoreArb, (input) => {
        const { text, tokens } = renderRestore(input);
        const close = closeTag(input.nonce);
        const lines = text.split("\n");
        const [preamble = "", opening = ""] = lines;
        const instruction = lines.at(-1) ?? "";
        // Outside the fence: the fixed preamble naming the nonce, and one fixed instruction.
        expect(preamble).toBe(`${LEADS[input.reason]} ${fenceRules(input.nonce)}`);
        expect(lines.at(-2)).toBe(close);
        const ref = SNAPSHOT_REF.exec(instruction);
        expect(INSTRUCTIONS[input.reason]).toContain(instruction.replace(SNAPSHOT_REF, "SNAPSHOT"));
        expect([
          ref?.[1] ?? input.snapshot.id,
          input.snapshot.timestamp.startsWith(ref?.[2]?.slice(0, 10) ?? ""),
        ]).toEqual([input.snapshot.id, true]);
        // The opening tag: the nonce, then attributes that cannot end it.
        expect(opening).toMatch(
          new RegExp(`^<big-memory-snapshot-${input.nonce}(?: [a-z]+="[^"<>]*")+>$`, "u"),
        );
        // Exactly two tags, the real ones, also when the whole text is folded.
        const openAt = preamble.length + 1;
        expect(fenceSites(text)).toEqual([openAt, text.length - instruction.length - 1 - close.length]);
        const folded = fold(text);
        expect(fenceSites(folded)).toEqual([openAt, folded.length - instruction.length - 1 - close.length]);
        expect(text).not.toMatch(INVISIBLE);
        expect(tokens).toBeLessThanOrEqual(input.tokenBudget ?? 1500);
      }),
      { numRuns: 10_000 },
    );
  }, 60_000);
});
