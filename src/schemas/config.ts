import { Type } from '@sinclair/typebox';

const NamesByTag = Type.Record(Type.String(), Type.Array(Type.String()));

export const HtmlSanitizationConfig = Type.Object({
  allowedTags: Type.Array(Type.String()),
  allowedAttributes: NamesByTag,
  allowedCssProperties: Type.Array(Type.String()),
  removedAttributes: NamesByTag,
  renamedTags: Type.Record(Type.String(), Type.String(), { description: 'Block elements not allowed as such, and the allowed tag each becomes' }),
  description: Type.String(),
});
