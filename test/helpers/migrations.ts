import fs from 'node:fs';
import path from 'node:path';
import { findMigrationsFolder } from '../../src/db/open.js';

interface Journal {
  entries: Array<{ idx: number; version: string; when: number; tag: string; breakpoints: boolean }>;
}

/** A copy of the committed migrations, cut to the first `keep` and/or with extra ones appended. */
export function migrationsCopy(dir: string, keep: number, extra: Array<{ tag: string; sql: string }> = []): string {
  const folder = path.join(dir, 'migrations');
  fs.cpSync(findMigrationsFolder(), folder, { recursive: true });
  const journalFile = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as Journal;
  journal.entries = journal.entries.slice(0, keep);
  let when = Math.max(...journal.entries.map((entry) => entry.when));
  for (const migration of extra) {
    when += 1000;
    journal.entries.push({ idx: journal.entries.length, version: '6', when, tag: migration.tag, breakpoints: true });
    fs.writeFileSync(path.join(folder, `${migration.tag}.sql`), migration.sql);
  }
  fs.writeFileSync(journalFile, JSON.stringify(journal));
  return folder;
}

