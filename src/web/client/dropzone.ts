/**
 * Drag and drop for image fields (docs/decisions.md, "Edit forms"): a file dropped on a
 * `[data-dropzone]` fills its file input, and the chosen image is previewed. The plain file input
 * works without this module.
 */
function enhanceDropzone(zone: HTMLElement): void {
  if (zone.dataset.dropzoneReady === '1') return;
  const input = zone.querySelector<HTMLInputElement>('input[type="file"]');
  if (input === null) return;
  zone.dataset.dropzoneReady = '1';
  const hint = zone.querySelector<HTMLElement>('[data-dropzone-hint]');
  const preview = zone.querySelector<HTMLImageElement>('[data-dropzone-preview]');
  if (hint !== null) hint.hidden = false;
  // A data: URL, not URL.createObjectURL: the page CSP's img-src allows data: and not blob:.
  const show = (): void => {
    const file = input.files?.[0];
    if (preview === null) return;
    preview.hidden = true;
    preview.removeAttribute('src');
    if (file === undefined || !file.type.startsWith('image/') || file.size > 5 * 1024 * 1024) return;
    const reader = new FileReader();
    reader.addEventListener('load', () => {
      if (input.files?.[0] !== file || typeof reader.result !== 'string') return;
      preview.src = reader.result;
      preview.hidden = false;
    });
    reader.readAsDataURL(file);
  };
  input.addEventListener('change', show);
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('dropzone--over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('dropzone--over'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('dropzone--over');
    const files = event.dataTransfer?.files;
    if (files === undefined || files.length === 0) return;
    const transfer = new DataTransfer();
    transfer.items.add(files[0] as File);
    input.files = transfer.files;
    show();
  });
}

function enhanceAll(root: ParentNode): void {
  root.querySelectorAll<HTMLElement>('[data-dropzone]').forEach(enhanceDropzone);
}

enhanceAll(document);
document.addEventListener('htmx:load', (event) => enhanceAll((event.target as Element | null) ?? document));
