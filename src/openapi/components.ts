// The document's named schemas (src/http/schema-names.ts): each is listed once under
// components.schemas, with its example, and referred to by $ref everywhere else.
import { declaredExample, isComponentName } from "../http/schema-names.ts";
import { schemaExamples } from "./examples.ts";
import { type Json, ref } from "./json.ts";

/** A named schema's example: the one given at its declaration, else the story's (examples.ts). */
export const componentExample = (name: string): unknown => declaredExample(name) ?? schemaExamples[name];

/** Replaces every titled subschema by a $ref to its component (made on first sight). */
export function hoist(node: unknown, components: Json): unknown {
  if (Array.isArray(node)) return node.map((n) => hoist(n, components));
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node))
    out[k] = k === "examples" || k === "example" ? v : hoist(v, components);
  const title = out.title;
  if (typeof title === "string" && isComponentName(title)) {
    if (!components[title]) {
      const example = componentExample(title);
      components[title] = example === undefined ? out : { ...out, examples: [example] };
    }
    return ref(title);
  }
  return out;
}
