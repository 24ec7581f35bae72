// Response serializers compiled once per schema per process. Fastify compiles a fast-json-stringify
// function for every response schema of every route each time an app is built. The service builds
// one app per process, but the test suite builds ~100 in each worker (one per file) from the same
// schema objects, and compiling them was ~120 ms of CPU per app. A schema object never changes
// once declared (TypeBox constants), so its compiled function can be shared; a route whose schema
// refers to shared schemas added with addSchema compiles as Fastify would (none do today).
import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import type { FastifyServerOptions } from "fastify";

type BuildSerializer = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]>["buildSerializer"]
>;

const compileFresh = SerializerSelector();
const compiled = new WeakMap<object, (data: unknown) => string>();

export const buildSerializer: BuildSerializer = (externalSchemas, serializerOpts) => {
  const compile = compileFresh(externalSchemas as never, serializerOpts as never);
  const shareable = Object.keys(externalSchemas ?? {}).length === 0 && serializerOpts === undefined;
  if (!shareable) return compile;
  return (route) => {
    const schema = route.schema as object;
    let serialize = compiled.get(schema);
    if (!serialize) {
      serialize = compile(route) as (data: unknown) => string;
      compiled.set(schema, serialize);
    }
    return serialize;
  };
};
