import sanitizeHtml from 'sanitize-html';
import { SANITIZATION_POLICY as policy } from './policy.js';

/** Each value of an allowed CSS property must be plain: no url(), expression() or the like. */
const SAFE_CSS_VALUE = /^(?![\s\S]*(?:url|expression|image-set|var|attr)\s*\()[-\w\s#%.,()'"!/]*$/i;

const ABSOLUTE_HTTP = /^https?:\/\//i;

function isAllowedImageSource(src: string): boolean {
  const trimmed = src.trim();
  return ABSOLUTE_HTTP.test(trimmed) || trimmed.startsWith(policy.ownImagePrefix);
}

/** sanitize-html options derived from the policy, built once per process. */
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...policy.allowedTags],
  allowedAttributes: Object.fromEntries(
    Object.entries(policy.allowedAttributes).map(([tag, attributes]) => [tag, [...attributes]]),
  ),
  allowedStyles: {
    '*': Object.fromEntries(policy.allowedCssProperties.map((property) => [property, [SAFE_CSS_VALUE]])),
  },
  allowedSchemes: [...policy.linkSchemes],
  allowedSchemesByTag: { img: [...policy.imageSchemes] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  nonTextTags: [...policy.droppedWithContent],
  transformTags: {
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: policy.linkRel } }),
    img: (tagName, attribs) => {
      const kept = Object.entries(attribs).filter(([name, value]) => name !== 'src' || isAllowedImageSource(value));
      return { tagName, attribs: Object.fromEntries(kept) };
    },
  },
  // An image whose source was not allowed has nothing left to show.
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
};

/** Sanitizes story HTML with the one policy (decisions.md, "Story HTML"): never rejects, only strips. */
export function sanitizeStoryHtml(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}
