/**
 * A parsed file as the story service's input (docs/decisions.md, "File import"). A file is not a
 * form: instead of refusing what a story body would refuse, the importer fits it in, as the
 * story rules allow: the title, author and series names cut to their limits, tag names cleaned
 * and cut (blank ones left out, at most the 100 a story carries), a source URL kept only when it
 * is an http(s) URL of at most 2048 characters.
 */
import { cleanName, storedTagName } from '../lib/names.js';
import { URL_MAX } from '../schemas/common.js';
import { LINKED_NAME_MAX, STORY_TAG_NAMES_MAX, STORY_TITLE_MAX } from '../schemas/story.js';
import { TAG_NAME_MAX } from '../schemas/tag.js';
import type { StoryInput } from '../stories/input.js';
import type { ParsedStory } from './parse.js';

function cut(text: string, max: number): string {
  return [...text].slice(0, max).join('').trim();
}

function nameChoice(raw: string | undefined): StoryInput['author'] {
  if (raw === undefined) return undefined;
  const name = cut(cleanName(raw), LINKED_NAME_MAX);
  return name === '' ? undefined : { name };
}

function tagNamesOf(raw: ParsedStory['tags']): string[] | undefined {
  if (raw === undefined) return undefined;
  const names = new Set<string>();
  for (const tag of raw) {
    const name = cut(storedTagName(tag.name), TAG_NAME_MAX);
    if (name !== '' && names.size < STORY_TAG_NAMES_MAX) names.add(name);
  }
  return [...names];
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
  const input: StoryInput & { title: string } = { title, author: nameChoice(story.authorNames?.[0]), series: nameChoice(story.seriesName), text: story.text };
  const tagNames = tagNamesOf(story.tags);
  if (tagNames !== undefined) input.tagNames = tagNames;
  if (story.summary !== undefined) input.summary = story.summary;
  const sourceUrl = acceptedSourceUrl(story.sourceUrl);
  if (sourceUrl !== undefined) input.sourceUrl = sourceUrl;
  if (story.volume !== undefined && Number.isSafeInteger(story.volume)) input.volume = story.volume;
  return input;
}
