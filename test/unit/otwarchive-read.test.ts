import fs from 'node:fs';
import t from 'tap';
import { ExtractPool } from '../../src/import/url/extract-pool.js';
import { storyParagraphs } from '../helpers/fixture-site.js';

const work = fs.readFileSync(new URL('../fixtures/otwarchive/work-multi-chapter.html', import.meta.url));

t.test('the extraction thread reads an otwarchive work by its markup and any other page as an article', async (t) => {
  const pool = new ExtractPool();
  t.teardown(() => pool.close());
  const read = await pool.read(work, 'utf-8', 'http://127.0.0.1:9/works/1001?view_full_work=true', 50, 3000);
  t.equal(read.kind, 'otwarchive');
  t.equal(read.kind === 'otwarchive' && read.page.kind === 'work' ? read.page.work.chapters.length : 0, 3, 'the whole work, in the pool thread');
  const page = Buffer.from(`<html><head><title>Rain</title></head><body><article>${storyParagraphs(['rain', 'on', 'roofs'])}</article></body></html>`);
  const article = await pool.read(page, 'utf-8', 'https://example.com/works/1', 50, 3000);
  t.equal(article.kind, 'article', 'a /works/ address of other software is an ordinary page');
  t.equal(article.kind === 'article' ? article.story?.title : undefined, 'Rain');
});
