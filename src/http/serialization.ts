// Response serializers compiled once per schema per process. Fastify compiles a fast-json-stringify
// function for every response schema of every route each time an app is built. The service builds
// one app per process, but the test suite builds ~100 in each worker (one per file), and compiling
// them was ~120 ms of CPU per app. fast-json-stringify makes the same function from the same JSON
// Schema, so a compiled function is shared by every schema with the same JSON text (most are the
// same TypeBox constants; an API route's problem answers are all the one Problem, route-errors.ts).
// A route whose schema refers to shared schemas added with addSchema compiles as Fastify would
// (none do).
import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import type { FastifyServerOptions } from "fastify";
import { compiledBySchemaText } from "./compiled-by-schema-text.ts";

type BuildSerializer = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]>["buildSerializer"]
>;

const compileFresh = SerializerSelector();
type Serialize = (data: unknown) => string;
const compiled = compiledBySchemaText<Serialize>();

export const buildSerializer: BuildSerializer = (externalSchemas, serializerOpts) => {
  const compile = compileFresh(externalSchemas as never, serializerOpts as never);
  const shareable = Object.keys(externalSchemas ?? {}).length === 0 && serializerOpts === undefined;
  if (!shareable) return compile;
  return (route) =>
    compiled(route.schema as object, () => {
      // Built at the first answer it serializes, not when the route is registered: most of a
      // process's routes never answer (the same reasoning as validation.ts compiledOnFirstUse).
      let serialize: Serialize | undefined;
      return (data) => {
        serialize ??= compile(route) as Serialize;
        return serialize(data);
      };
    });
};
