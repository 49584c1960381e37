import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/**
 * Fastify's own response-serializer factory (fast-json-stringify), with each schema object
 * compiled once: Fastify compiles a serializer per route and status code, and most of those
 * share a handful of schemas (every route's error statuses share `ErrorBody`): 341 compiles of
 * 35 distinct schemas at startup. A serializer depends only on its schema (and the shared
 * external schemas of its factory), so routes sharing a schema object share its serializer.
 */
export const cachedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  const compiled = new WeakMap<object, ReturnType<typeof compile>>();
  return (route) => {
    const schema = route.schema;
    if (typeof schema !== 'object' || schema === null) return compile(route);
    let serializer = compiled.get(schema);
    if (serializer === undefined) {
      serializer = compile(route);
      compiled.set(schema, serializer);
    }
    return serializer;
  };
};
