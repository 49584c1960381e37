import fs from 'node:fs';
import path from 'node:path';
import type { TObject, TSchema } from '@sinclair/typebox';
import t from 'tap';
import { AuthorDto } from '../../src/schemas/author.js';
import { SeriesDto } from '../../src/schemas/series.js';
import { StoryDto } from '../../src/schemas/story.js';
import { TagDto } from '../../src/schemas/tag.js';

/**
 * docs/api.md's "Fields" section describes each resource in prose. It drifted once (it said a
 * story's `tags` were names while the API sends tag objects), so this holds each description
 * to the schema the routes send: every property is named, nothing else is, and a property that
 * is a list of objects is described as objects.
 */
const doc = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'docs', 'api.md'), 'utf8');
const fields = doc.slice(doc.indexOf('\n## Fields'), doc.indexOf('\n## ', doc.indexOf('\n## Fields') + 1));

function section(heading: string): string {
  const start = fields.indexOf(`\n### ${heading}\n`);
  if (start < 0) throw new Error(`docs/api.md has no "### ${heading}" under "## Fields"`);
  const end = fields.indexOf('\n### ', start + 1);
  // The resource's own paragraph: its first one (create bodies follow in a paragraph of their own).
  const body = fields.slice(start, end < 0 ? undefined : end).split('\n\n')[1] ?? '';
  return body.replace(/\s+/g, ' ');
}

/** The backticked words of a description at the top level (not inside `{...}` examples or parentheses). */
function namedFields(text: string): Set<string> {
  let depth = 0;
  let outer = '';
  for (const char of text) {
    if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (depth === 0) outer += char;
  }
  return new Set([...outer.matchAll(/`([A-Za-z]+)`/g)].map((match) => match[1] as string));
}

/** What the description says right after the field's name, up to the next field. */
function describedAs(text: string, field: string): string {
  const at = text.indexOf(`\`${field}\``);
  const next = text.indexOf(', `', at + field.length + 2);
  return text.slice(at, next < 0 ? undefined : next);
}

const isObjectList = (schema: TSchema) => schema.type === 'array' && (schema.items as TSchema | undefined)?.type === 'object';

const resources: [string, TObject][] = [
  ['Story', StoryDto],
  ['Author', AuthorDto],
  ['Tag', TagDto],
  ['Series', SeriesDto],
];

for (const [heading, schema] of resources) {
  t.test(`docs/api.md describes every ${heading} field as the API sends it`, async (t) => {
    const text = section(heading);
    const named = namedFields(text);
    t.same([...named].sort(), Object.keys(schema.properties).sort(), 'the fields named are exactly the schema properties');
    for (const [name, property] of Object.entries(schema.properties)) {
      if (isObjectList(property)) t.match(describedAs(text, name), /objects/, `\`${name}\` is described as a list of objects`);
    }
  });
}
