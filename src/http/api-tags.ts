// The OpenAPI document's tags, each declared beside the routes that carry it: a new resource names
// its tag and says what it groups where its routes live, and the document lists what was declared
// (src/openapi/document.ts), in the order the routes first use them.

export interface ApiTag {
  description: string;
  /** Listed after the resources (health and readiness are not what a reader comes for). */
  last?: boolean;
}

const declared = new Map<string, ApiTag>();

/** Declares a tag with its description, and gives the `tags` list a route schema carries. */
export function declareApiTag(name: string, description: string, { last = false } = {}): string[] {
  const earlier = declared.get(name);
  if (earlier && (earlier.description !== description || earlier.last !== last))
    throw new Error(`API tag ${name} is declared twice, differently`);
  declared.set(name, { description, last });
  return [name];
}

/** Every declared tag. */
export function declaredApiTags(): ReadonlyMap<string, ApiTag> {
  return declared;
}

/**
 * A status workflow as a Markdown table (From | Can move to), for the description of a tag whose
 * resource moves through one; `note` adds a remark to one move.
 */
export function transitionTable(
  transitions: Readonly<Record<string, readonly string[]>>,
  note: (from: string, to: string) => string = () => "",
): string {
  const rows = Object.entries(transitions).map(
    ([from, to]) =>
      `| ${from} | ${to.length ? to.map((t) => `${t}${note(from, t)}`).join(", ") : "nothing: it is final"} |`,
  );
  return ["| From | Can move to |", "| --- | --- |", ...rows].join("\n");
}
