import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/**
 * Fastify's own response-serializer factory (fast-json-stringify), with each schema object
 * compiled once: Fastify compiles a serializer per route and status code, and most of those
 * share a handful of schemas (every route's error statuses share `ErrorBody`): 341 compiles of
 * 35 distinct schemas at startup. A serializer depends only on its schema (and the shared
 * external schemas of its factory), so routes sharing a schema object share its serializer.
 * Each is compiled on the first response that needs it, not at start-up: an app answers from a
 * few of its ~1,150 route and status pairs in most runs and in every test (docs/decisions.md,
 * "Validation"); test/unit/route-schemas-compile.test.ts compiles every one of them.
 */
export const cachedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  const compiled = new WeakMap<object, ReturnType<typeof compile>>();
  const compileOnce = (route: Parameters<typeof compile>[0]) => {
    const schema = route.schema;
    if (typeof schema !== 'object' || schema === null) return compile(route);
    let serializer = compiled.get(schema);
    if (serializer === undefined) {
      serializer = compile(route);
      compiled.set(schema, serializer);
    }
    return serializer;
  };
  return (route) => {
    let serializer: ReturnType<typeof compile> | undefined;
    return (data) => (serializer ??= compileOnce(route))(data);
  };
};
