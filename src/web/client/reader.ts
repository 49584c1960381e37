// The reader (src/web/stories/reader.eta): saves the reading position (chapter, paragraph and the
// whole work's fraction) as you read and restores it on any device, applies the text settings
// live, and adds the left/right arrow keys for the previous and next chapter and `[` / `]` for the
// previous and next volume. Without this module the page still reads, the settings form posts,
// and the chapter and series links work (docs/decisions.md, "Story page and reader").

const SAVE_DELAY_MS = 1000;
/** The keys that follow a link: chapters by the arrows, volumes of a series by brackets. */
const KEYS: Record<string, string> = {
  ArrowLeft: '[data-reader-chapter-prev]',
  ArrowRight: '[data-reader-chapter-next]',
  '[': '[data-reader-prev]',
  ']': '[data-reader-next]',
};
let stop: (() => void) | undefined;

function start(root: HTMLElement): void {
  stop?.();
  const id = root.dataset.storyId ?? '';
  const text = root.querySelector<HTMLElement>('[data-reader-text]');
  const abort = new AbortController();
  const signal = abort.signal;
  let timer = 0;
  let saved = '';
  let userScrolled = false;
  // Whether the reader has scrolled since the page opened: clicking a control and leaving saves nothing.
  let moved = false;

  const blocks = (): Element[] => (text === null ? [] : Array.from(text.children));
  const top = (element: Element): number => element.getBoundingClientRect().top + window.scrollY;

  const chapter = Number(root.dataset.chapter ?? '1') || 1;
  const wordsBefore = Number(root.dataset.wordsBefore ?? '0') || 0;
  const chapterWords = Number(root.dataset.chapterWords ?? '0') || 0;
  const totalWords = Number(root.dataset.totalWords ?? '0') || 0;

  // Within the chapter: 0 with the text's top at the top of the window, 1 with its end at the
  // bottom; `progress` is that place as a fraction of the whole work, by the chapters' word counts.
  function current(): { progress: number; position: string | null; chapter: number } {
    let within = 0;
    let position: string | null = null;
    if (text !== null) {
      const span = text.offsetHeight - window.innerHeight;
      const raw = span <= 0 ? 1 : (window.scrollY - top(text)) / span;
      within = Math.min(1, Math.max(0, raw));
      const index = blocks().findIndex((block) => block.getBoundingClientRect().bottom > 0);
      position = index < 0 ? null : String(index);
    }
    const whole = totalWords > 0 ? (wordsBefore + within * chapterWords) / totalWords : within;
    return { progress: Math.round(Math.min(1, Math.max(0, whole)) * 10000) / 10000, position, chapter };
  }

  function save(leaving: boolean): void {
    window.clearTimeout(timer);
    if (!moved) return;
    const body = JSON.stringify(current());
    if (body === saved) return;
    saved = body;
    void fetch(`/api/stories/${encodeURIComponent(id)}/progress`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body,
      credentials: 'same-origin',
      keepalive: leaving,
    }).catch(() => {
      saved = '';
    });
  }

  function restore(): void {
    if (text === null || userScrolled) return;
    const block = blocks()[Number(root.dataset.position)];
    const progress = Number(root.dataset.progress);
    if (root.dataset.position !== '' && block !== undefined) window.scrollTo(0, top(block));
    else if (progress > 0) window.scrollTo(0, top(text) + progress * (text.offsetHeight - window.innerHeight));
  }

  // Scrolls caused by restoring are not reading: only wheel, touch, keys or the scrollbar count.
  for (const type of ['wheel', 'touchmove', 'keydown', 'pointerdown']) {
    window.addEventListener(type, () => (userScrolled = true), { signal, passive: true });
  }
  window.addEventListener(
    'scroll',
    () => {
      window.clearTimeout(timer);
      if (!userScrolled) return;
      moved = true;
      timer = window.setTimeout(() => save(false), SAVE_DELAY_MS);
    },
    { signal, passive: true },
  );
  document.addEventListener('visibilitychange', () => document.visibilityState === 'hidden' && save(true), { signal });
  window.addEventListener('pagehide', () => save(true), { signal });
  // hx-boost leaves the page by swapping the body: save first, then stop listening.
  document.addEventListener('htmx:beforeRequest', () => save(true), { signal });
  // A boosted visit scrolls to the top after the swap settles; restore again after it.
  document.addEventListener('htmx:afterSettle', restore, { signal, once: true });

  document.addEventListener(
    'keydown',
    (event) => {
      const target = event.target as HTMLElement | null;
      if (event.altKey || event.ctrlKey || event.metaKey || target?.closest('input, select, textarea, [contenteditable]')) return;
      if (event.shiftKey && event.key.startsWith('Arrow')) return;
      const selector = KEYS[event.key];
      const link = selector === undefined ? null : root.querySelector<HTMLAnchorElement>(selector);
      if (link !== null) {
        event.preventDefault();
        link.click();
      }
    },
    { signal },
  );

  // Settings apply at once and go to the cookie the server reads; the Apply button stays for no-JS.
  const form = root.querySelector<HTMLFormElement>('[data-reader-settings]');
  form?.addEventListener(
    'change',
    () => {
      const data = new FormData(form);
      const value = ['size', 'leading', 'width'].map((name) => {
        const choice = String(data.get(name));
        root.dataset[name] = choice;
        return choice;
      });
      document.cookie = `reader=${value.join('.')}; path=/; max-age=31536000; samesite=lax`;
    },
    { signal },
  );

  stop = () => {
    abort.abort();
    window.clearTimeout(timer);
    stop = undefined;
  };
  restore();
  // Opening a chapter other than the saved one (by its link, the contents or a key) is reading
  // it: saved even if it fits the window and is never scrolled.
  if (root.dataset.savedHere === 'false') {
    const opened = window.setTimeout(() => {
      moved = true;
      save(false);
    }, SAVE_DELAY_MS);
    signal.addEventListener('abort', () => window.clearTimeout(opened));
  }
}

function init(): void {
  const root = document.querySelector<HTMLElement>('[data-reader]');
  if (root === null) stop?.();
  else if (root.dataset.enhanced !== 'true') {
    root.dataset.enhanced = 'true';
    start(root);
  }
}

init();
document.addEventListener('htmx:load', init);
