/**
 * The fake's data: collections (schema, documents in insertion order) and aliases, with the
 * validation Typesense applies to schemas and to each imported document. Errors carry the HTTP
 * status of Typesense's API reference (400 bad request, 404 not found, 409 already exists,
 * 422 unprocessable). See ./index.ts for what the fake follows and leaves out.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const FIELD_TYPES = new Set(['string', 'string[]', 'int32', 'int32[]', 'int64', 'int64[]', 'float', 'float[]', 'bool', 'bool[]']);
const NUMERIC = new Set(['int32', 'int64', 'float']);

export interface FieldSpec {
  name: string;
  type: string;
  optional: boolean;
  facet: boolean;
  index: boolean;
  sort: boolean;
}

export type Document = Record<string, unknown> & { id: string };

export interface Collection {
  name: string;
  fields: FieldSpec[];
  fieldMap: Map<string, FieldSpec>;
  defaultSortingField: string;
  tokenSeparators: string[];
  createdAt: number;
  documents: Map<string, Document>;
  /** Insertion order, for Typesense's final tie-break. */
  sequence: Map<string, number>;
  nextSequence: number;
}

export const isNumeric = (type: string) => NUMERIC.has(type);
export const isStringType = (type: string) => type === 'string' || type === 'string[]';

function fieldSpec(raw: unknown): FieldSpec {
  if (typeof raw !== 'object' || raw === null) throw new ApiError(400, 'Wrong format for `fields`. It should be an array of objects.');
  const field = raw as Record<string, unknown>;
  if (typeof field.name !== 'string' || field.name === '') throw new ApiError(400, 'Wrong format for `fields`. It should be an array of objects containing `name`, `type`, `optional` and `facet` properties.');
  if (typeof field.type !== 'string' || !FIELD_TYPES.has(field.type)) {
    throw new ApiError(400, `Field \`${field.name}\` has an invalid data type \`${String(field.type)}\`, see docs for supported data types.`);
  }
  const index = field.index !== false;
  if (!index && field.optional !== true) throw new ApiError(400, `Field \`${field.name}\` must be an optional field if index is false.`);
  return {
    name: field.name,
    type: field.type,
    optional: field.optional === true,
    facet: field.facet === true,
    index,
    sort: index && (typeof field.sort === 'boolean' ? field.sort : isNumeric(field.type)),
  };
}

/** The collection summary Typesense answers collection calls with. */
export function summary(collection: Collection): Record<string, unknown> {
  return {
    name: collection.name,
    num_documents: collection.documents.size,
    created_at: collection.createdAt,
    default_sorting_field: collection.defaultSortingField,
    token_separators: collection.tokenSeparators,
    symbols_to_index: [],
    enable_nested_fields: false,
    fields: collection.fields.map((field) => ({ ...field, infix: false, locale: '', stem: false })),
  };
}

export class Store {
  readonly collections = new Map<string, Collection>();
  readonly aliases = new Map<string, string>();

  /** A collection by name or alias (Typesense resolves aliases in every collection path). */
  resolve(name: string): Collection | undefined {
    return this.collections.get(this.aliases.get(name) ?? name);
  }

  require(name: string): Collection {
    const collection = this.resolve(name);
    if (collection === undefined) throw new ApiError(404, 'Not found.');
    return collection;
  }

  createCollection(body: unknown): Collection {
    if (typeof body !== 'object' || body === null) throw new ApiError(400, 'Bad JSON.');
    const schema = body as Record<string, unknown>;
    if (typeof schema.name !== 'string' || schema.name === '') throw new ApiError(400, 'Parameter `name` is required.');
    if (!Array.isArray(schema.fields)) throw new ApiError(400, 'Parameter `fields` is required.');
    if (this.collections.has(schema.name)) throw new ApiError(409, `A collection with name \`${schema.name}\` already exists.`);
    const fields = schema.fields.map(fieldSpec);
    const fieldMap = new Map<string, FieldSpec>();
    for (const field of fields) {
      if (fieldMap.has(field.name)) throw new ApiError(400, `There are duplicate field names in the schema.`);
      fieldMap.set(field.name, field);
    }
    const defaultSortingField = typeof schema.default_sorting_field === 'string' ? schema.default_sorting_field : '';
    if (defaultSortingField !== '') {
      const field = fieldMap.get(defaultSortingField);
      if (field === undefined) throw new ApiError(400, `Default sorting field is defined as \`${defaultSortingField}\` but is not found in the schema.`);
      if (!isNumeric(field.type)) throw new ApiError(400, `Default sorting field \`${defaultSortingField}\` is not a sortable type.`);
      if (field.optional) throw new ApiError(400, `Default sorting field \`${defaultSortingField}\` cannot be an optional field.`);
    }
    const separators = Array.isArray(schema.token_separators) ? schema.token_separators.map(String) : [];
    if (separators.some((separator) => [...separator].length !== 1)) throw new ApiError(400, 'Field `token_separators` must be an array of single character strings.');
    const collection: Collection = {
      name: schema.name,
      fields,
      fieldMap,
      defaultSortingField,
      tokenSeparators: separators,
      createdAt: Math.floor(Date.now() / 1000),
      documents: new Map(),
      sequence: new Map(),
      nextSequence: 0,
    };
    this.collections.set(collection.name, collection);
    return collection;
  }

  dropCollection(name: string): Collection {
    const collection = this.require(name);
    this.collections.delete(collection.name);
    return collection;
  }

  upsertAlias(name: string, body: unknown): { name: string; collection_name: string } {
    const target = (body as { collection_name?: unknown } | null)?.collection_name;
    if (typeof target !== 'string' || target === '') throw new ApiError(400, 'Parameter `collection_name` is required.');
    if (this.collections.has(name)) throw new ApiError(400, `Alias name \`${name}\` cannot be the same as a collection name.`);
    if (!this.collections.has(target)) throw new ApiError(404, `Collection \`${target}\` not found.`);
    this.aliases.set(name, target);
    return { name, collection_name: target };
  }

  /** Puts (creates or replaces) a valid document; a broken one is an error for its import line. */
  put(collection: Collection, raw: unknown, action: 'create' | 'upsert'): void {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ApiError(400, 'Bad JSON.');
    const document = { ...(raw as Record<string, unknown>) };
    if (document.id === undefined) document.id = String(collection.nextSequence);
    if (typeof document.id !== 'string') throw new ApiError(400, 'Document\'s `id` field should be a string.');
    if (document.id === '') throw new ApiError(400, 'The `id` should not be empty.');
    for (const field of collection.fields) {
      const value = document[field.name];
      if (value === undefined || value === null) {
        if (!field.optional) throw new ApiError(400, `Field \`${field.name}\` has been declared in the schema, but is not found in the document.`);
        delete document[field.name];
        continue;
      }
      const problem = typeProblem(field, value);
      if (problem !== undefined) throw new ApiError(400, problem);
    }
    const id = document.id as string;
    if (action === 'create' && collection.documents.has(id)) throw new ApiError(409, `A document with id ${id} already exists.`);
    if (!collection.sequence.has(id)) {
      collection.sequence.set(id, collection.nextSequence);
      collection.nextSequence += 1;
    }
    collection.documents.set(id, document as Document);
  }
}

function typeProblem(field: FieldSpec, value: unknown): string | undefined {
  const scalar = (type: string, item: unknown): boolean => {
    if (type === 'string') return typeof item === 'string';
    if (type === 'bool') return typeof item === 'boolean';
    if (type === 'float') return typeof item === 'number' && Number.isFinite(item);
    if (type === 'int32') return Number.isInteger(item) && Math.abs(item as number) <= 2 ** 31;
    return Number.isInteger(item);
  };
  if (field.type.endsWith('[]')) {
    const type = field.type.slice(0, -2);
    if (!Array.isArray(value)) return `Field \`${field.name}\` must be an array.`;
    if (!value.every((item) => scalar(type, item))) return `Field \`${field.name}\` must be an array of ${type}.`;
    return undefined;
  }
  return scalar(field.type, value) ? undefined : `Field \`${field.name}\` must be ${field.type === 'int32' || field.type === 'int64' ? 'an' : 'a'} ${field.type}.`;
}
