import { NotFound } from '../errors.js';

/** The 404 of every story route: one wording (docs/api.md, "Errors"). */
export function storyNotFound(id: string): NotFound {
  return new NotFound(`Story not found with id: ${id}`);
}
