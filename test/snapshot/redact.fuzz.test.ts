import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redact, redactDeep } from "../../plugin/snapshot/redact.ts";
import { PATHOLOGICAL_FRAGMENTS, PATHOLOGICAL_VARIED, repeatTo, variedTo } from "./redact-pathological.ts";

/**
 * Redaction against pathological inputs: long texts made of the fragments that once made it super-linear
 * (`mysql `, `sshpass `, `password: `, JWT-like and PEM-like pieces, URL userinfo without `@`, …), mixed
 * and repeated, up to 256 KB. Each run gets a budget through redaction's own deadline, on a clock of the
 * process's CPU time (so a loaded machine does not spend it), generous and proportional to the input (1 s
 * plus 10 µs per character: 3.6 s at 256 KB, where the quadratic rules took minutes), and must finish
 * within it; the times themselves are measured in `npm run bench`.
 */

const FRAGMENTS = PATHOLOGICAL_FRAGMENTS.map(([, fragment]) => fragment);
/** Milliseconds of CPU this process has used: a clock that other processes on the machine do not move. */
const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
/** A budget in CPU time, proportional to the input. */
const budget = (length: number) => ({ at: cpuNow() + 1000 + length / 100, now: cpuNow });

const pathological = fc
  .record({
    pieces: fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 8 })), {
      minLength: 1,
      maxLength: 6,
    }),
    length: fc.integer({ min: 10_000, max: 256_000 }),
  })
  .map(({ pieces, length }) => repeatTo(pieces.join(""), length));

describe("redact on pathological inputs", () => {
  it("finishes every family at 256 KB within a budget linear in its length", () => {
    for (const [, fragment] of PATHOLOGICAL_FRAGMENTS) {
      const text = repeatTo(fragment, 256_000);
      expect(redact(text, { deadline: budget(text.length) }).unchecked).toBeUndefined();
    }
  });

  it("finishes every family with values varied at 256 KB within the same budget, each value redacted", () => {
    for (const [, family] of PATHOLOGICAL_VARIED) {
      const text = variedTo(family, 256_000);
      const out = redact(text, { deadline: budget(text.length) });
      expect(out.unchecked).toBeUndefined();
      expect(out.total).toBeGreaterThan(1000);
    }
  });

  it("finishes mixes of the families within a budget linear in their length, and is idempotent", () => {
    fc.assert(
      fc.property(pathological, (text) => {
        const once = redact(text, { deadline: budget(text.length) });
        expect(once.unchecked).toBeUndefined();
        const twice = redact(once.text, { deadline: budget(once.text.length) });
        expect(twice).toEqual({ text: once.text, counts: {}, total: 0 });
      }),
      { numRuns: 40 },
    );
  });

  it("finishes a value of many pathological strings within its budget", () => {
    fc.assert(
      fc.property(fc.array(pathological, { minLength: 1, maxLength: 4 }), (texts) => {
        const size = texts.reduce((n, t) => n + t.length, 0);
        const value = { args: texts.map((t) => ({ command: t })) };
        expect(redactDeep(value, { deadline: budget(size) }).unchecked).toBeUndefined();
      }),
      { numRuns: 10 },
    );
  });
});
