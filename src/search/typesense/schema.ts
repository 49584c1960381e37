/**
 * What Storyshelf keeps in Typesense (docs/typesense.md): two collections, stories and authors,
 * each behind an alias (`<prefix>_stories`, `<prefix>_authors`) that points at a versioned
 * collection (`<prefix>_stories_<version>`), so a reindex can build fresh collections and swap
 * the alias without a moment of empty results.
 *
 * Documents use the entity's UUID as `id` and the API's own field names, so a reader of the
 * Typesense data recognises the API in it. Three kinds of helper field exist only for the engine:
 * `idKey` (a sortable copy of `id`: Typesense cannot sort on `id`, and every sort here ends with
 * it, as the embedded engine's do), `titleKey` (the title with ASCII letters lowercased, the
 * order of the embedded engine's `COLLATE NOCASE`) and `authorNameKey` / `nameKey` (the name key
 * of src/lib/names.ts, for case-insensitive filters and sorts). Timestamps are epoch
 * milliseconds (int64); unset values are left out of the document (every such field is optional).
 */
import type { CollectionCreateSchema, CollectionFieldSchema } from 'typesense';
import { TAG_KINDS, TAG_KIND_FIELDS, type TagKindListField } from '../../schemas/tag.js';

export type CollectionKind = 'stories' | 'authors';

export const COLLECTION_KINDS: readonly CollectionKind[] = ['stories', 'authors'];

/** The aliases the worker writes to and searches read from. */
export function aliasName(prefix: string, kind: CollectionKind): string {
  return `${prefix}_${kind}`;
}

/** A versioned collection behind an alias. */
export function collectionName(prefix: string, kind: CollectionKind, version: number): string {
  return `${prefix}_${kind}_${version}`;
}

/** True for a collection this service created under this prefix (current or left over). */
export function isOwnCollection(prefix: string, kind: CollectionKind, name: string): boolean {
  return name.startsWith(`${prefix}_${kind}_`) && /^\d+$/.test(name.slice(prefix.length + kind.length + 2));
}

/**
 * A story's document. Besides the fields below, the tag names of each kind (docs/decisions.md,
 * "Tag kinds") under the search API's filter names (`fandoms`, …, `contentRatings`, `freeforms`),
 * sorted; a kind the story has no tag of is left out.
 */
export interface StoryDocument extends Partial<Record<TagKindListField, string[]>> {
  id: string;
  idKey: string;
  title: string;
  titleKey: string;
  summary?: string;
  description?: string;
  /** The plain text, cut at {@link MAX_CONTENT_CHARS}. */
  contentPlain?: string;
  authorId?: string;
  authorName?: string;
  authorNameKey?: string;
  seriesId?: string;
  seriesName?: string;
  volume?: number;
  /**
   * The stored names, sorted, as StorySearchDto lists them. A stored name is as unique as the
   * tag's fold key, so filters name the tag by it (engine.ts resolves the spelling).
   */
  tagNames: string[];
  rating?: number;
  wordCount: number;
  coverPath?: string;
  sourceUrl?: string;
  createdAt: number;
  updatedAt: number;
  /** The reader's own state (docs/decisions.md, "Reading status"); `finishedAt` in epoch ms. */
  readingStatus?: string;
  finishedAt?: number;
  readCount: number;
  favourite: boolean;
}

export interface AuthorDocument {
  id: string;
  idKey: string;
  name: string;
  nameKey: string;
  notes?: string;
  urls: string[];
  avatarImagePath?: string;
  authorRating?: number;
  averageStoryRating?: number;
  storyCount: number;
  createdAt: number;
  updatedAt: number;
}

/**
 * Body text beyond this many characters is not sent (about 40,000 words): it keeps one import
 * line, and Typesense's memory, bounded. The embedded engine still matches the whole text.
 */
export const MAX_CONTENT_CHARS = 250_000;

/**
 * Characters that split words, so Typesense sees "e-mail", "don't" and URL parts as separate
 * words like the embedded engine's unicode61 tokenizer does (Typesense's default is to drop them
 * and join the pieces).
 */
const TOKEN_SEPARATORS = ['-', '_', '.', '/', ':', '@', "'", '’', '+', '&', '#', '=', '?', '~', ',', ';', '!', '(', ')', '[', ']'];

const field = (name: string, type: CollectionFieldSchema['type'], options: Partial<CollectionFieldSchema> = {}): CollectionFieldSchema => ({
  name,
  type,
  ...options,
});
/** Stored for the result, never searched, filtered or sorted: no index memory. */
const stored = (name: string, type: CollectionFieldSchema['type']) => field(name, type, { optional: true, index: false });

const STORY_FIELDS: CollectionFieldSchema[] = [
  field('title', 'string'),
  field('titleKey', 'string', { sort: true }),
  field('summary', 'string', { optional: true }),
  field('description', 'string', { optional: true }),
  field('contentPlain', 'string', { optional: true }),
  stored('authorId', 'string'),
  field('authorName', 'string', { optional: true, facet: true }),
  field('authorNameKey', 'string', { optional: true, sort: true }),
  stored('seriesId', 'string'),
  field('seriesName', 'string', { optional: true, facet: true }),
  stored('volume', 'int32'),
  field('tagNames', 'string[]', { facet: true }),
  // One field per tag kind, for its filter and facet: a tag's kind changing re-sends its stories (./outbox.ts).
  ...TAG_KINDS.map((kind) => field(TAG_KIND_FIELDS[kind].list, 'string[]', { optional: true, facet: true })),
  field('rating', 'int32', { optional: true, facet: true }),
  field('wordCount', 'int32'),
  stored('coverPath', 'string'),
  stored('sourceUrl', 'string'),
  field('createdAt', 'int64'),
  field('updatedAt', 'int64'),
  field('readingStatus', 'string', { optional: true, facet: true }),
  stored('finishedAt', 'int64'),
  stored('readCount', 'int32'),
  field('favourite', 'bool', { facet: true }),
  field('idKey', 'string', { sort: true }),
];

const AUTHOR_FIELDS: CollectionFieldSchema[] = [
  field('name', 'string'),
  field('nameKey', 'string', { sort: true }),
  field('notes', 'string', { optional: true }),
  field('urls', 'string[]'),
  stored('avatarImagePath', 'string'),
  field('authorRating', 'int32', { optional: true, facet: true }),
  field('averageStoryRating', 'float', { optional: true }),
  field('storyCount', 'int32'),
  field('createdAt', 'int64'),
  field('updatedAt', 'int64'),
  field('idKey', 'string', { sort: true }),
];

/**
 * The fields this version declares for a collection of this kind that an existing collection's
 * schema (`declared`) lacks: a collection made by an older version, which a search filtering or
 * counting on a newer field would fail against.
 */
export function missingFields(kind: CollectionKind, declared: readonly string[]): string[] {
  return (kind === 'stories' ? STORY_FIELDS : AUTHOR_FIELDS).map((schemaField) => schemaField.name).filter((name) => !declared.includes(name));
}

/** The explicit schema of a fresh collection of this kind. */
export function collectionSchema(kind: CollectionKind, name: string): CollectionCreateSchema {
  return {
    name,
    fields: kind === 'stories' ? STORY_FIELDS : AUTHOR_FIELDS,
    default_sorting_field: 'createdAt',
    token_separators: TOKEN_SEPARATORS,
  };
}
