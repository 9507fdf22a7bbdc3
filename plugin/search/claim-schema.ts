/** The schema of a claim (claims.ts), apart so that reading an empty claims file does not load zod. */
import { z } from "zod";

/** One claim: the block at `file`:`line` with snapshot id `id` belongs to `session` (and `agent`). */
export const Claim = z.object({
  v: z.literal(1),
  at: z.string(),
  file: z.string(),
  line: z.number().int().positive(),
  id: z.string(),
  session: z.string(),
  agent: z.string().nullable(),
  trigger: z.literal("flush"),
});
export type Claim = z.infer<typeof Claim>;
