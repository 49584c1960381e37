/**
 * `filter_by` for the fake: clauses joined by `&&`, each `field:<op><value>` with op one of
 * `=`, `!=`, `>=`, `<=`, `>`, `<` or none, and a value that is a bare word, a backtick literal or
 * a `[...]` list (numbers may use `a..b` ranges). String matching is case- and
 * diacritic-insensitive: `:=` compares the whole value, `:` looks for the words. `||` and
 * parentheses are not implemented (400, as for any filter the fake cannot parse).
 */
import { ApiError, isNumeric, type Collection, type Document } from './store.js';
import { fold, tokenize } from './text.js';

type Operator = '=' | '!=' | '>=' | '<=' | '>' | '<' | ':';

interface Clause {
  field: string;
  operator: Operator;
  values: string[];
}

const PARSE_ERROR = () => new ApiError(400, 'Could not parse the filter query.');

/** Splits on `separator` outside backticks and brackets. */
function splitOutside(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === '`') quoted = !quoted;
    else if (!quoted && char === '[') depth += 1;
    else if (!quoted && char === ']') depth -= 1;
    else if (!quoted && depth === 0 && text.startsWith(separator, index)) {
      parts.push(text.slice(start, index));
      start = index + separator.length;
      index += separator.length - 1;
    }
  }
  if (quoted || depth !== 0) throw PARSE_ERROR();
  parts.push(text.slice(start));
  return parts;
}

function unquote(raw: string): string {
  const value = raw.trim();
  if (value.startsWith('`')) {
    if (!value.endsWith('`') || value.length < 2) throw PARSE_ERROR();
    return value.slice(1, -1);
  }
  if (value === '') throw PARSE_ERROR();
  return value;
}

function parseClause(raw: string): Clause {
  const text = raw.trim();
  const colon = text.indexOf(':');
  if (colon <= 0) throw PARSE_ERROR();
  const field = text.slice(0, colon).trim();
  let rest = text.slice(colon + 1).trim();
  let operator: Operator = ':';
  for (const candidate of ['!=', '>=', '<=', '=', '>', '<'] as const) {
    if (rest.startsWith(candidate)) {
      operator = candidate;
      rest = rest.slice(candidate.length).trim();
      break;
    }
  }
  if (rest.startsWith('[')) {
    if (!rest.endsWith(']')) throw PARSE_ERROR();
    return { field, operator, values: splitOutside(rest.slice(1, -1), ',').map(unquote) };
  }
  return { field, operator, values: [unquote(rest)] };
}

/** Parses a filter against a collection's schema; the result tells whether a document passes. */
export function compileFilter(filter: string, collection: Collection): (document: Document) => boolean {
  if (/\|\||[()]/.test(filter.replace(/`[^`]*`/g, ''))) throw PARSE_ERROR();
  const clauses = splitOutside(filter, '&&').map(parseClause);
  const tests = clauses.map((clause) => {
    const field = collection.fieldMap.get(clause.field);
    if (field === undefined || !field.index) throw new ApiError(404, `Could not find a filter field named \`${clause.field}\` in the schema.`);
    const scalarType = field.type.replace('[]', '');
    if (isNumeric(scalarType)) return numericTest(clause);
    if (scalarType === 'string') return stringTest(clause);
    return (value: unknown) => clause.values.some((wanted) => String(value) === wanted);
  });
  return (document) =>
    clauses.every((clause, index) => {
      const value = document[clause.field];
      if (value === undefined || value === null) return clause.operator === '!=';
      const items = Array.isArray(value) ? value : [value];
      const test = tests[index] as (item: unknown) => boolean;
      return clause.operator === '!=' ? !items.some(test) : items.some(test);
    });
}

function numericTest(clause: Clause): (item: unknown) => boolean {
  const bounds = clause.values.map((value) => {
    const range = /^(-?[\d.]+)\s*\.\.\s*(-?[\d.]+)$/.exec(value);
    const low = Number(range ? range[1] : value);
    const high = Number(range ? range[2] : value);
    if (Number.isNaN(low) || Number.isNaN(high)) throw PARSE_ERROR();
    return { low, high, range: range !== null };
  });
  return (item) => {
    const number = Number(item);
    return bounds.some(({ low, high, range }) => {
      if (range) return number >= low && number <= high;
      switch (clause.operator) {
        case '>=':
          return number >= low;
        case '<=':
          return number <= low;
        case '>':
          return number > low;
        case '<':
          return number < low;
        default:
          return number === low;
      }
    });
  };
}

function stringTest(clause: Clause): (item: unknown) => boolean {
  if (['>=', '<=', '>', '<'].includes(clause.operator)) throw PARSE_ERROR();
  const wanted = clause.values.map(fold);
  if (clause.operator === ':') {
    const words = clause.values.map((value) => tokenize(value).map((token) => token.folded));
    return (item) => {
      const present = new Set(tokenize(String(item)).map((token) => token.folded));
      return words.some((list) => list.length > 0 && list.every((word) => present.has(word)));
    };
  }
  return (item) => wanted.includes(fold(String(item)));
}
