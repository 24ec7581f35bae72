// Names a person or a mail shows: a shop's, a member's, a customer's, an OAuth application's. They
// appear in mail headers (the sender's display name, the subject), calendar files, log lines and
// pages, so none may carry a control character: a CR/LF could start a header or a calendar line of
// its own, and the others show as nothing or garble a line. C0 and C1 controls, DEL and the Unicode
// line and paragraph separators are refused where the name is written (validation_failed naming
// the field), not cleaned where it is shown.

/** The characters no name may hold. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

const CONTROL_CLASS = "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029";

/**
 * The JSON Schema `pattern` of a name: no control character, and one visible character at least
 * (neither a control character nor white space: `\S` alone would take a BEL for one).
 */
export const DISPLAY_NAME_PATTERN = `^[^${CONTROL_CLASS}]*[^${CONTROL_CLASS}\\s][^${CONTROL_CLASS}]*$`;

/** The sentence a field error gives for a name that breaks the pattern. */
export const DISPLAY_NAME_RULE = "must not be blank or contain control characters (such as line breaks)";

export function hasControlCharacters(value: string): boolean {
  return CONTROL.test(value);
}

/**
 * What is wrong with `name` (already trimmed) as a name of at most `max` characters, or undefined
 * when nothing is.
 */
export function displayNameProblem(name: string, max: number): string | undefined {
  if (name === "" || name.length > max) return `must be 1-${max} characters`;
  if (hasControlCharacters(name)) return DISPLAY_NAME_RULE;
  return undefined;
}
