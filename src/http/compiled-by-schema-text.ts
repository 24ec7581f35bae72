// One compiled function per schema text per process, for Fastify's schema compilers
// (validation.ts, serialization.ts). Fastify compiles every route's schemas each time an app is
// built, often from a new object with the same text (a header schema copied to lowercase names,
// strict-query.ts's per-route query schema, problem answers rebuilt per app). What Ajv and
// fast-json-stringify make is a pure function of the schema's text and their own options, so a
// cache per compiler hands every schema with the same text the function made first.

/** A cache for one compiler: `compiled(schema, compile)` compiles only a text not seen before. */
export function compiledBySchemaText<F>(): (schema: object, compile: () => F) => F {
  const byObject = new WeakMap<object, F>();
  const byText = new Map<string, F>();
  return (schema, compile) => {
    let fn = byObject.get(schema);
    if (fn) return fn;
    const text = JSON.stringify(schema);
    fn = byText.get(text);
    if (!fn) {
      fn = compile();
      byText.set(text, fn);
    }
    byObject.set(schema, fn);
    return fn;
  };
}
