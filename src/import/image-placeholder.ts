/**
 * The scheme of an image placeholder in an extracted story's `contentHtml`: written by the
 * extractor (./html-story.ts, in its worker) and replaced by the image downloader
 * (./url/images.ts, on the main thread). A module of its own so the main thread does not load the
 * extractor's Readability and linkedom to read one string.
 */
export const IMAGE_PLACEHOLDER = 'storyshelf-import:';
