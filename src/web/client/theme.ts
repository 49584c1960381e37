// Enhances the header's theme form (src/web/layout/header.eta): applies the chosen theme at once
// and stores it with a background POST instead of reloading the page. Without this module the
// form posts and redirects back, which works the same (docs/web.md, "Client modules").

const THEMES = new Set(['auto', 'light', 'dark', 'sepia']);

function enhance(form: HTMLFormElement): void {
  if (form.dataset.enhanced === 'true') return;
  form.dataset.enhanced = 'true';
  form.addEventListener('submit', (event) => {
    const submitter = (event as SubmitEvent).submitter;
    if (!(submitter instanceof HTMLButtonElement) || !THEMES.has(submitter.value)) return;
    event.preventDefault();
    const theme = submitter.value;
    document.documentElement.dataset.theme = theme;
    for (const button of form.querySelectorAll<HTMLButtonElement>('button[name="theme"]')) {
      button.setAttribute('aria-pressed', String(button.value === theme));
    }
    const body = new URLSearchParams({ theme });
    // Answered 204 (HX-Request marks a script's request). A failed save leaves the page themed until the
    // next load: nothing to tell the reader.
    void fetch(form.action, { method: 'POST', body, credentials: 'same-origin', headers: { 'HX-Request': 'true' } })
      .then((response) => response.text())
      .catch(() => undefined);
  });
}

function enhanceAll(): void {
  for (const form of document.querySelectorAll<HTMLFormElement>('form[data-theme-form]')) enhance(form);
}

enhanceAll();
// hx-boost swaps the body, header included: enhance the new form too.
document.addEventListener('htmx:load', enhanceAll);
