// Text search terms as SQL LIKE patterns: what the person typed is matched literally, so "%" or
// "_" in it are not wildcards (and a lone "%" does not list everything by accident).

/** `%term%` with LIKE's metacharacters escaped (backslash is PostgreSQL's default escape). */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A search box's value: trimmed, at most 100 characters, undefined when empty. */
export function searchTerm(raw: string | undefined): string | undefined {
  const term = raw?.replaceAll("\u0000", "").trim().slice(0, 100);
  return term ? term : undefined;
}
