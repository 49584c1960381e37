/**
 * The synthetic library both benchmarks seed (`scripts/bench.ts`, `scripts/bench-search.ts`),
 * shaped like a real one: bodies of 300 to 8,000 words (log-normal, median ~1,500) drawn from a
 * 50,000-word vocabulary with Zipf-distributed frequencies; ~1 author per 8 stories, ~1 series
 * per 40, 300 tags with Zipf usage (2 to 6 per story), ratings on 60%, a cover on 1%.
 *
 * Everything comes from one seeded PRNG, so the same size always builds the same library (ids
 * included), and two runs find the same search terms.
 *
 * Seeding goes through the write path the services use (`writeTransaction` with the stories,
 * authors, series and tags repositories, the image store for covers), so the rows, derived
 * counts, search documents and suggestions are exactly what the API would have written; what it
 * skips is the per-request HTML work. Bodies are generated already in the form the sanitizer
 * emits, with their plain text and word count: {@link assertGeneratorMatchesSanitizer} proves
 * that on a sample with the real `deriveStoryText`, so skipping it changes nothing stored.
 */
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { performance } from 'node:perf_hooks';
import type { Db } from '../../src/db/open.js';
import { writeTransaction } from '../../src/db/transaction.js';
import type { ImageStore } from '../../src/images/store.js';
import { deriveStoryText } from '../../src/html/story-text.js';
import { insertAuthor, replaceAuthorUrls } from '../../src/authors/repository.js';
import { insertSeries } from '../../src/series/repository.js';
import { insertTag } from '../../src/tags/repository.js';
import { insertStory, linkTags } from '../../src/stories/repository.js';
import { insertChapter } from '../../src/stories/chapter-repository.js';

export const DEFAULT_SEED = 20261121;
export const VOCABULARY_SIZE = 50_000;
const ZIPF_S = 1.07;
export const TAG_COUNT = 300;

/** How many of each thing a library of `stories` stories holds (the proportions above). */
export interface LibraryShape {
  stories: number;
  authors: number;
  series: number;
  tags: number;
}

export function libraryShape(stories: number): LibraryShape {
  return {
    stories,
    authors: Math.max(5, Math.round(stories / 8)),
    series: Math.max(3, Math.round(stories / 40)),
    tags: Math.min(TAG_COUNT, Math.max(10, stories)),
  };
}

/** mulberry32: small, fast, seeded; every run of one size builds the same library. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Vose's alias table over Zipf weights 1/rank^s: O(1) per draw. */
export function zipfSampler(size: number, s: number, random: () => number): () => number {
  const scaled = new Float64Array(size);
  let total = 0;
  for (let rank = 0; rank < size; rank += 1) {
    scaled[rank] = 1 / Math.pow(rank + 1, s);
    total += scaled[rank]!;
  }
  for (let rank = 0; rank < size; rank += 1) scaled[rank] = (scaled[rank]! * size) / total;
  const probability = new Float64Array(size);
  const alias = new Int32Array(size);
  const small: number[] = [];
  const large: number[] = [];
  scaled.forEach((value, index) => (value < 1 ? small : large).push(index));
  while (small.length > 0 && large.length > 0) {
    const less = small.pop()!;
    const more = large.pop()!;
    probability[less] = scaled[less]!;
    alias[less] = more;
    scaled[more] = scaled[more]! + scaled[less]! - 1;
    (scaled[more]! < 1 ? small : large).push(more);
  }
  for (const index of [...small, ...large]) probability[index] = 1;
  return () => {
    const column = Math.floor(random() * size);
    return random() < probability[column]! ? column : alias[column]!;
  };
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A story as the generator makes it: the row's values plus which author/series/tags by index. */
export interface StorySpec {
  id: string;
  title: string;
  summary: string;
  description: string | null;
  contentHtml: string;
  contentPlain: string;
  wordCount: number;
  sourceUrl: string | null;
  rating: number | null;
  volume: number | null;
  author: number | null;
  series: number | null;
  tags: number[];
  hasCover: boolean;
  createdAt: string;
  updatedAt: string;
}

/**
 * The deterministic text and story source. Construct once per library; call {@link story} in
 * order 0, 1, 2, ... (each call draws from the shared PRNG).
 */
export class SyntheticLibrary {
  readonly random: () => number;
  readonly vocabulary: string[];
  readonly shape: LibraryShape;
  private readonly sampleRank: () => number;
  private readonly pickAuthor: () => number;
  private readonly pickTag: () => number;
  private readonly nextVolume: Int32Array;
  private readonly end = Date.parse('2026-11-01T00:00:00.000Z');
  /** Five years of history, spread evenly over the stories. */
  private readonly step: number;

  constructor(stories: number, seed = DEFAULT_SEED) {
    this.random = prng(seed);
    this.shape = libraryShape(stories);
    this.vocabulary = makeVocabulary(VOCABULARY_SIZE, this.random);
    this.sampleRank = zipfSampler(VOCABULARY_SIZE, ZIPF_S, this.random);
    // Prolific authors exist, but the tail still writes: s = 0.7 gives the top author ~2%.
    this.pickAuthor = zipfSampler(this.shape.authors, 0.7, this.random);
    this.pickTag = zipfSampler(this.shape.tags, 1, this.random);
    this.nextVolume = new Int32Array(this.shape.series);
    this.step = (5 * 365 * 86_400_000) / Math.max(1, stories);
  }

  randomInt(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  word(): string {
    return this.vocabulary[this.sampleRank()]!;
  }

  words(count: number): string {
    let text = this.word();
    for (let i = 1; i < count; i += 1) text += ` ${this.word()}`;
    return text;
  }

  /** A UUID v4 from the PRNG: the same library gets the same ids on every run. */
  uuid(): string {
    let hex = '';
    for (let i = 0; i < 4; i += 1) hex += Math.floor(this.random() * 0x100000000).toString(16).padStart(8, '0');
    const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }

  /** 300 to 8,000 words, log-normal around a median of 1,500 (mean ~1,800). */
  bodyWordCount(): number {
    const u = 1 - this.random();
    const v = this.random();
    const gaussian = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return Math.min(8000, Math.max(300, Math.round(Math.exp(Math.log(1500) + 0.6 * gaussian))));
  }

  /**
   * A body of `count` words in paragraphs of 40 to 120, as HTML in the exact form the sanitizer
   * emits, with the plain text `htmlToPlainText` gives for it and its word count.
   */
  body(count: number): { html: string; plain: string; wordCount: number } {
    const paragraphs: string[] = [];
    let left = count;
    while (left > 0) {
      const size = Math.min(left, this.randomInt(40, 120));
      paragraphs.push(`${capitalized(this.words(size))}.`);
      left -= size;
    }
    return { html: paragraphs.map((paragraph) => `<p>${paragraph}</p>`).join('\n'), plain: paragraphs.join('\n\n'), wordCount: count };
  }

  authorName(index: number): string {
    return `${capitalized(this.vocabulary[this.randomInt(200, 20_000)]!)} ${capitalized(this.vocabulary[this.randomInt(200, 40_000)]!)} ${index + 1}`;
  }

  seriesName(index: number): string {
    return `${capitalized(this.words(this.randomInt(1, 3)))} Saga ${index + 1}`;
  }

  /** Distinct lowercased tag names: 20 genres, then words from the vocabulary's middle. */
  tagNames(): string[] {
    const names = new Set<string>();
    for (let i = 0; names.size < this.shape.tags && i < 100_000; i += 1) {
      names.add(i < 20 ? `genre-${i + 1}` : this.vocabulary[this.randomInt(100, 5_000)]!);
    }
    return [...names];
  }

  /** Story number `n` (0-based; the newest is the last). */
  story(n: number): StorySpec {
    const r = this.random;
    const words = this.bodyWordCount();
    const body = this.body(words);
    const inSeries = r() < 0.35;
    const series = inSeries ? this.randomInt(0, this.shape.series - 1) : null;
    const tagCount = this.randomInt(2, 6);
    const tags = new Set<number>();
    for (let attempt = 0; tags.size < tagCount && attempt < 50; attempt += 1) tags.add(this.pickTag());
    const created = this.end - (this.shape.stories - n) * this.step - this.randomInt(0, Math.floor(this.step / 2));
    const updated = r() < 0.3 ? Math.min(this.end, created + this.randomInt(1, 90) * 86_400_000) : created;
    return {
      id: this.uuid(),
      title: capitalized(this.words(this.randomInt(2, 6))),
      summary: `${capitalized(this.words(this.randomInt(15, 60)))}.`,
      description: r() < 0.5 ? `${capitalized(this.words(this.randomInt(10, 80)))}.` : null,
      contentHtml: body.html,
      contentPlain: body.plain,
      wordCount: body.wordCount,
      sourceUrl: r() < 0.7 ? `https://stories.example.net/${n + 1}` : null,
      rating: r() < 0.6 ? [1, 2, 3, 3, 4, 4, 4, 5, 5, 5][this.randomInt(0, 9)]! : null,
      volume: series === null ? null : ++this.nextVolume[series]!,
      author: r() < 0.97 ? this.pickAuthor() : null,
      series,
      tags: [...tags],
      hasCover: r() < 0.01,
      createdAt: new Date(created).toISOString(),
      updatedAt: new Date(updated).toISOString(),
    };
  }
}

/** Pronounceable, distinct words; a few carry diacritics, like real text. */
function makeVocabulary(size: number, random: () => number): string[] {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const onsets = ['b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z', 'br', 'ch', 'st', 'th', 'tr', 'gl', 'pl', 'sh'];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ou', 'é', 'ö'];
  const codas = ['', '', '', 'n', 'r', 's', 't', 'l', 'm', 'nd', 'st', 'ck'];
  const seen = new Set<string>();
  const words: string[] = [];
  for (let attempt = 0; words.length < size && attempt < size * 20; attempt += 1) {
    const syllables = words.length < 200 ? 1 + Math.floor(random() * 2) : 2 + Math.floor(random() * 3);
    let word = '';
    for (let i = 0; i < syllables; i += 1) word += pick(onsets) + pick(vowels) + pick(codas);
    if (!seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  return words;
}

/**
 * A real, small PNG cover (a 96x144 gradient with a little noise, ~20-40 KB), different for
 * every `variant`; it passes the image store's structure check like an upload would.
 */
export function coverPng(variant: number): Buffer {
  const width = 96;
  const height = 144;
  const random = prng(variant + 1);
  const raw = Buffer.alloc((width * 3 + 1) * height);
  let offset = 0;
  for (let y = 0; y < height; y += 1) {
    raw[offset++] = 0;
    for (let x = 0; x < width; x += 1) {
      const noise = Math.floor(random() * 24);
      raw[offset++] = (variant * 37 + x * 2 + noise) & 0xff;
      raw[offset++] = (variant * 11 + y + noise) & 0xff;
      raw[offset++] = (128 + x - y + noise) & 0xff;
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32 === undefined ? crc32(typed) : zlib.crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** CRC-32 for Node versions without `zlib.crc32` (before 20.15). */
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) {
    c ^= byte;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * Checks that the generator's bodies are what the stories service would store for them:
 * `deriveStoryText(html)` (sanitize, plain text, word count) gives back the same triple.
 * Throws on the first difference, so a generator change can never silently skew the library.
 */
export function assertGeneratorMatchesSanitizer(samples = 20, seed = DEFAULT_SEED + 1): void {
  const library = new SyntheticLibrary(100, seed);
  for (let i = 0; i < samples; i += 1) {
    const body = library.body(library.bodyWordCount());
    const derived = deriveStoryText(body.html);
    if (derived.contentHtml !== body.html || derived.contentPlain !== body.plain || derived.wordCount !== body.wordCount) {
      throw new Error(`synthetic body ${i} is not a fixed point of deriveStoryText (words ${body.wordCount} vs ${derived.wordCount})`);
    }
  }
}

export interface SeedOptions {
  stories: number;
  /** Stories per write transaction. */
  batch?: number;
  seed?: number;
  /** Covers go through the store (skipped when absent: the search benchmark has none). */
  store?: ImageStore;
  /** Told after each batch. */
  progress?: (done: number, seconds: number) => void;
}

export interface SeedReport {
  stories: number;
  authors: number;
  series: number;
  tags: number;
  covers: number;
  seconds: number;
  storiesPerSecond: number;
  library: SyntheticLibrary;
}

/**
 * Seeds a fresh (migrated, empty) library through the services' write path: authors (30% with a
 * URL, half with notes), series and tags first, then the stories in transactions of `batch`,
 * each story inserted and linked to its tags with the stories repository inside
 * `writeTransaction`, so triggers keep every count and the search sync indexes each batch
 * before it commits. Covers are stored through the image store before their batch opens, as
 * the services do (file first, then the row).
 */
export async function seedLibrary(db: Db, options: SeedOptions): Promise<SeedReport> {
  assertGeneratorMatchesSanitizer();
  const batch = options.batch ?? 1000;
  const library = new SyntheticLibrary(options.stories, options.seed ?? DEFAULT_SEED);
  const { shape } = library;
  const client = db.$client;
  // A bulk load: no fsync per batch and a big page cache on this (seeding-only) connection.
  client.pragma('synchronous = OFF');
  client.pragma('cache_size = -262144');
  const started = performance.now();

  const authorIds: string[] = [];
  const seriesIds: string[] = [];
  const tagIds: string[] = [];
  writeTransaction(db, (tx) => {
    for (let i = 0; i < shape.authors; i += 1) {
      const notes = library.random() < 0.5 ? `${capitalized(library.words(library.randomInt(5, 40)))}.` : null;
      const author = insertAuthor(tx, { name: library.authorName(i), notes });
      if (library.random() < 0.3) replaceAuthorUrls(tx, author.id, [`https://example.org/${library.vocabulary[library.randomInt(0, 5000)]}/${i + 1}`]);
      authorIds.push(author.id);
    }
    for (let i = 0; i < shape.series; i += 1) seriesIds.push(insertSeries(tx, { name: library.seriesName(i) }).id);
    for (const name of library.tagNames()) tagIds.push(insertTag(tx, name).id);
  });

  let covers = 0;
  for (let done = 0; done < shape.stories; ) {
    const size = Math.min(batch, shape.stories - done);
    const specs = Array.from({ length: size }, (_, i) => library.story(done + i));
    const coverPaths = new Map<string, string>();
    if (options.store !== undefined) {
      for (const spec of specs) {
        if (!spec.hasCover) continue;
        const file = Readable.from([coverPng(covers)]);
        coverPaths.set(spec.id, await options.store.saveUploadedImage({ fieldname: 'file', file }, 'covers'));
        covers += 1;
      }
    }
    writeTransaction(db, (tx) => {
      for (const spec of specs) {
        insertStory(tx, {
          id: spec.id,
          title: spec.title,
          summary: spec.summary,
          description: spec.description,
          contentHtml: spec.contentHtml,
          contentPlain: spec.contentPlain,
          wordCount: spec.wordCount,
          sourceUrl: spec.sourceUrl,
          rating: spec.rating,
          volume: spec.volume,
          authorId: spec.author === null ? null : authorIds[spec.author]!,
          seriesId: spec.series === null ? null : seriesIds[spec.series]!,
          coverPath: coverPaths.get(spec.id) ?? null,
          createdAt: spec.createdAt,
          updatedAt: spec.updatedAt,
        });
        linkTags(
          tx,
          spec.id,
          spec.tags.map((tag) => tagIds[tag]!),
        );
        // Every story is at least one chapter: its text as one untitled chapter, as the migration makes it.
        insertChapter(tx, spec.id, 1, { title: '', contentHtml: spec.contentHtml, contentPlain: spec.contentPlain, wordCount: spec.wordCount, sourceUrl: null, sourceKey: null }, spec.createdAt);
      }
    });
    done += size;
    options.progress?.(done, (performance.now() - started) / 1000);
  }
  client.pragma('synchronous = NORMAL');
  client.pragma('cache_size = -2000');
  const seconds = (performance.now() - started) / 1000;
  return {
    stories: shape.stories,
    authors: shape.authors,
    series: shape.series,
    tags: tagIds.length,
    covers,
    seconds,
    storiesPerSecond: shape.stories / seconds,
    library,
  };
}
