/**
 * What the CLI prints reaches a terminal, and much of it was written by someone else: a snapshot's goal,
 * a hand-written block, a log's file name, an invalid id quoted in a diagnostic. A control character in
 * any of them would be obeyed by the terminal (clear the screen, set the window title, write the
 * clipboard with OSC 52, hide text), and a bidirectional override would show a line in another order
 * than it reads. Everything the CLI writes, to stdout and stderr, goes through {@link forTerminal}.
 */

/**
 * Characters a terminal obeys or reorders by: C0 controls other than tab and newline, DEL, C1 controls,
 * the line and paragraph separators, and the Unicode bidirectional marks, embeddings, overrides and
 * isolates.
 */
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The escapes the CLI's own colours are made of (cli-text.ts `styleFor`): SGR codes and nothing else. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the colours' escape character
const OWN_STYLE = /\u001b\[(?:1|2|22|31|32|33|39)m/y;

/**
 * `text` with every unsafe character written as its `\u` escape (`\u001b`, `\u202e`), so that the terminal
 * prints it instead of obeying it. With `colours`, the CLI's own colour codes are kept (a colour code in
 * the text then stays a colour too: it can do no more than the CLI's own colours do).
 *
 * A JSON document keeps its value through this: `JSON.stringify` writes C0 controls as escapes already,
 * and a `\u` escape of any other character inside a JSON string is that character.
 */
export function forTerminal(text: string, colours: boolean): string {
  UNSAFE.lastIndex = 0;
  if (!UNSAFE.test(text)) return text;
  return text.replace(UNSAFE, (c, at: number) => {
    if (colours && c === "\u001b") {
      OWN_STYLE.lastIndex = at;
      if (OWN_STYLE.test(text)) return c;
    }
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/**
 * A command's JSON document as printed: indented for a person at a terminal, on one line for a pipe or a
 * file. The value is the same either way; one line is what scripts read, and it is written several times
 * faster (a list of 50,000 snapshots: 15 MB on one line against 19.6 MB indented, which `JSON.stringify`
 * writes about 2.5x slower and as a string that costs a copy more on its way out).
 */
export function jsonDocument(doc: unknown, terminal: boolean): string {
  return `${terminal ? JSON.stringify(doc, null, 2) : JSON.stringify(doc)}\n`;
}
