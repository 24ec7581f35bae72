// Component names for the OpenAPI document, given where each schema is declared. A named schema
// carries its name as `title`, which changes neither validation nor serialization; the document
// lists each named schema once under components.schemas and refers to it by $ref wherever a route
// or an event uses it (src/openapi/document.ts). A new resource names its schemas here and edits
// nothing in src/openapi/.
import { type ObjectOptions, type TObject, type TProperties, type TSchema, Type } from "@sinclair/typebox";

const names = new Set<string>();
const examples = new Map<string, unknown>();

/**
 * Gives `schema` its component name (as its `title`) and returns it, with the example the
 * document shows for it, if given here (else src/openapi/examples.ts, the bridal shop's story,
 * has it). Each name is given once (test/unit/schema-names.test.ts): two schemas of one name
 * would be one component.
 */
export function named<T extends TSchema>(name: string, schema: T, example?: unknown): T {
  (schema as { title?: string }).title = name;
  names.add(name);
  if (example !== undefined) examples.set(name, example);
  return schema;
}

/** `Type.Object(properties, options)`, named. */
export const namedObject = <T extends TProperties>(
  name: string,
  properties: T,
  options?: ObjectOptions,
  example?: unknown,
): TObject<T> => named(name, Type.Object(properties, options), example);

/** Whether `name` is a component name given by `named`. */
export const isComponentName = (name: string): boolean => names.has(name);

/** The example given with the name, if one was. */
export const declaredExample = (name: string): unknown => examples.get(name);
