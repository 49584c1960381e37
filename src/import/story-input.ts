/**
 * A parsed file as the story service's input (docs/decisions.md, "File import"). A file is not a
 * form: instead of refusing what a story body would refuse, the importer fits it in, as the
 * story rules allow: the title, author and series names cut to their limits, tag names cleaned
 * and cut (blank ones left out, at most the 100 a story carries, the first kind of a name kept), a
 * source URL kept only when it is an http(s) URL of at most 2048 characters, chapter titles cut to
 * 500 characters, every author kept in order (at most the 50 a story may name: one more would
 * make a story no edit could save and no library archive restore).
 */
import { cleanName, nameKey, storedTagName } from '../lib/names.js';
import { CHAPTER_TITLE_MAX } from '../schemas/chapter.js';
import { URL_MAX } from '../schemas/common.js';
import { LINKED_NAME_MAX, STORY_AUTHORS_MAX, STORY_TAG_NAMES_MAX, STORY_TITLE_MAX } from '../schemas/story.js';
import { TAG_NAME_MAX, type TagKind } from '../schemas/tag.js';
import { assembleWork, type ChapterText } from '../stories/chapter-text.js';
import type { StoryInput } from '../stories/input.js';
import type { ParsedChapter, ParsedStory } from './parse.js';

function cut(text: string, max: number): string {
  return [...text].slice(0, max).join('').trim();
}

function nameChoice(raw: string | undefined): StoryInput['author'] {
  if (raw === undefined) return undefined;
  const name = cut(cleanName(raw), LINKED_NAME_MAX);
  return name === '' ? undefined : { name };
}

/** Tag names cleaned and cut to the story rules, each with the first kind given for it (the file and the archive import alike). */
export function tagsOf(raw: ParsedStory['tags']): { names: string[]; kinds: Map<string, TagKind> } | undefined {
  if (raw === undefined) return undefined;
  const names = new Set<string>();
  const kinds = new Map<string, TagKind>();
  for (const tag of raw) {
    const name = cut(storedTagName(tag.name), TAG_NAME_MAX);
    if (name === '' || names.size >= STORY_TAG_NAMES_MAX) continue;
    names.add(name);
    if (tag.kind !== undefined && !kinds.has(nameKey(name))) kinds.set(nameKey(name), tag.kind);
  }
  return { names: [...names], kinds };
}

/** Author names cleaned and cut, each once, in order, at most a story's. */
export function authorNamesOf(raw: readonly string[] | undefined): string[] {
  const names: string[] = [];
  for (const author of raw ?? []) {
    const name = cut(cleanName(author), LINKED_NAME_MAX);
    if (name !== '' && !names.includes(name) && names.length < STORY_AUTHORS_MAX) names.push(name);
  }
  return names;
}

/** One parsed chapter as the chapter model stores it. */
export function chapterTextOf(chapter: ParsedChapter): ChapterText {
  return {
    title: cut(chapter.title, CHAPTER_TITLE_MAX),
    contentHtml: chapter.text.contentHtml ?? '',
    contentPlain: chapter.text.contentPlain ?? '',
    wordCount: chapter.text.wordCount,
    sourceUrl: acceptedSourceUrl(chapter.sourceUrl) ?? null,
    sourceKey: chapter.sourceKey === undefined ? null : cut(chapter.sourceKey, URL_MAX + 16),
  };
}



/** An http(s) URL the API would accept as `sourceUrl`, normalised as a URL import's (docs/decisions.md, "URL import", Duplicates), else undefined. */
export function acceptedSourceUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.length > URL_MAX) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    // WHATWG-normalised without the fragment, as a URL import stores it, so the two find each other's duplicates.
    url.hash = '';
    return url.href.length > URL_MAX ? undefined : url.href;
  } catch {
    return undefined;
  }
}

/** The story input for a parsed file; its `title` is never blank. */
export function storyInputOf(story: ParsedStory): StoryInput & { title: string } {
  const title = cut(cleanName(story.title), STORY_TITLE_MAX) || 'Untitled';
  const [first, ...coauthors] = authorNamesOf(story.authorNames);
  const chapters = story.chapters.map(chapterTextOf);
  const input: StoryInput & { title: string } = {
    title,
    author: first === undefined ? undefined : { name: first },
    series: nameChoice(story.seriesName),
    chapters,
    // The chapters are sanitized already (in the parser's thread): the whole work is their assembly.
    text: assembleWork(chapters),
  };
  if (coauthors.length > 0) input.coauthorNames = coauthors;
  const tags = tagsOf(story.tags);
  if (tags !== undefined) {
    input.tagNames = tags.names;
    if (tags.kinds.size > 0) input.tagKinds = tags.kinds;
  }
  if (story.status !== undefined) input.status = story.status;
  if (story.publishedAt !== undefined) input.publishedAt = story.publishedAt;
  if (story.sourceUpdatedAt !== undefined) input.sourceUpdatedAt = story.sourceUpdatedAt;
  if (story.language !== undefined) input.language = story.language;
  if (story.summary !== undefined) input.summary = story.summary;
  const sourceUrl = acceptedSourceUrl(story.sourceUrl);
  if (sourceUrl !== undefined) input.sourceUrl = sourceUrl;
  if (story.volume !== undefined && Number.isSafeInteger(story.volume)) input.volume = story.volume;
  return input;
}
