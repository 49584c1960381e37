import t from 'tap';
import { createRenderQueue, MAX_CONCURRENT_RENDERS, thumbnailUrl } from '../../src/images/thumbnails.js';
import { THUMBNAIL_WIDTHS } from '../../src/schemas/files.js';
import { parseImagePath } from '../../src/images/image-path.js';

t.test('thumbnailUrl is the image URL with ?w=, for every width', async (t) => {
  const relPath = 'covers/3f2b0c9e-0000-4000-8000-000000000000.jpg';
  t.same(THUMBNAIL_WIDTHS, [160, 320]);
  t.equal(thumbnailUrl(relPath, 160), `/api/files/images/${relPath}?w=160`);
  t.equal(thumbnailUrl(relPath, 320), `/api/files/images/${relPath}?w=320`);
  t.equal(parseImagePath(new URL(thumbnailUrl(relPath, 320), 'http://x').pathname.slice('/api/files/images/'.length)).relPath, relPath);
});

t.test('the render queue runs at most its limit at once, the rest in arrival order, and survives failures', async (t) => {
  t.equal(MAX_CONCURRENT_RENDERS, 2);
  const queue = createRenderQueue();
  let running = 0;
  let peak = 0;
  const started: number[] = [];
  const job = (n: number) => async () => {
    started.push(n);
    running += 1;
    peak = Math.max(peak, running);
    await new Promise((resolve) => setTimeout(resolve, 5));
    running -= 1;
    if (n % 3 === 0) throw new Error(`job ${n} fails`);
    return n;
  };
  const results = await Promise.allSettled(Array.from({ length: 12 }, (_, n) => queue.run(job(n))));
  t.equal(peak, 2, 'never more than two at once');
  t.same(started, Array.from({ length: 12 }, (_, n) => n), 'in arrival order');
  t.same(results.map((r) => r.status), Array.from({ length: 12 }, (_, n) => (n % 3 === 0 ? 'rejected' : 'fulfilled')));
  t.equal(queue.running, 0, 'every slot is freed');
});
