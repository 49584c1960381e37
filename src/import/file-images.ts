/**
 * The pictures inside an imported file (an EPUB's), stored like an imported web page's
 * (docs/decisions.md, "File import" and "URL import"): by the image store as an upload (JPEG,
 * PNG or WebP by their bytes, structure-checked, metadata stripped, at most 5 MiB) under
 * `inline/`, the story body being their only reference. The parser (in its worker) put a
 * placeholder of the stored-image URL shape in each `<img>` (src/import/epub.ts); here, on the
 * main thread and before the story's transaction, each placeholder becomes the stored image's
 * URL, and the `<img>` of a picture the store refused is removed.
 */
import { Readable } from 'node:stream';
import type { StoryText } from '../html/story-text.js';
import { storedImageOfSource } from '../images/inline-images.js';
import type { ImageStore } from '../images/store.js';
import { placeStoredImages } from './image-placeholder.js';
import type { ParsedStory } from './parse.js';

export interface StoredFileImages {
  /** The story with stored URLs in place of the placeholders, and no picture bytes. */
  story: ParsedStory;
  /** The `inline/<file>` paths written: removed again if the story's write fails. */
  stored: string[];
  /** Pictures the store refused (not JPEG, PNG or WebP, damaged): left out. */
  refused: number;
}

function placed(text: StoryText, refused: readonly string[], stored: ReadonlyMap<string, string>): StoryText {
  return text.contentHtml === null ? text : { ...text, contentHtml: placeStoredImages(text.contentHtml, refused, stored) };
}

/** Stores `story`'s pictures one after another and places them in its chapters. */
export async function storeFileImages(store: ImageStore, story: ParsedStory): Promise<StoredFileImages> {
  const { images = [], ...rest } = story;
  if (images.length === 0) return { story: rest, stored: [], refused: 0 };
  const stored = new Map<string, string>();
  const refused: string[] = [];
  for (const image of images) {
    const placeholderPath = storedImageOfSource(image.placeholder) as string;
    try {
      stored.set(placeholderPath, await store.saveUploadedImage({ fieldname: 'image', file: Readable.from([Buffer.from(image.bytes)]) }, 'inline'));
    } catch {
      refused.push(image.placeholder);
    }
  }
  const chapters = rest.chapters.map((chapter) => ({ ...chapter, text: placed(chapter.text, refused, stored) }));
  return { story: { ...rest, chapters }, stored: [...stored.values()], refused: refused.length };
}
