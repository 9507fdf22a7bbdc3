/**
 * The host's heap, for the hook bench. big-memory's hooks run inside the OpenClaw gateway, whose live heap
 * is ten times a bare bench process's. V8 sizes its old generation's limit from the live heap: a process
 * holding only the plugin (about 25 MB live) reaches, after some thousand calls, a state the gateway does not
 * (the room under that limit smaller than its grown young generation, so full collections follow each other
 * every 150-250 ms), and a bench without the host's heap would time V8's sizing of a small process rather
 * than the hook.
 *
 * Measured on a real OpenClaw 2026.9.6 gateway running the end-to-end task (README, "Hook latency"): about
 * 300 MB in use after its full collections (old space 216 MB), a young generation of 128 MB, and five full
 * collections in 141 s. `hostHeap(mb)` keeps `mb` MB alive, as text in arrays (module sources, transcripts,
 * caches): cheap to mark, as the gateway's heap proved to be, so that full collections stay as rare as they
 * were there; a graph of small objects of that size made this process collect every second, which the
 * gateway did not.
 */
export interface HostHeap {
  /** The heap's growth while it was built, in MB. */
  readonly mb: number;
  /** How many strings it holds. */
  readonly strings: number;
}

export function hostHeap(mb: number): { heap: HostHeap; keep: unknown } {
  const before = process.memoryUsage().heapUsed;
  const keep: string[][] = [];
  let strings = 0;
  // Flat 1 KB one-byte strings, each distinct, 1,024 to an array (decoded from bytes: a padded or repeated
  // string could be kept as a rope over one shared piece, much smaller than its length).
  const bytes = Buffer.alloc(1000);
  for (let i = 0; i < mb; i++) {
    const chunk: string[] = [];
    for (let j = 0; j < 1024; j++) {
      bytes.fill(97 + ((i * 31 + j) % 26));
      bytes.write(`${i}:${j}:`);
      chunk.push(bytes.toString("latin1"));
      strings++;
    }
    keep.push(chunk);
  }
  const grown = (process.memoryUsage().heapUsed - before) / 1024 / 1024;
  return { heap: { mb: grown, strings }, keep };
}
