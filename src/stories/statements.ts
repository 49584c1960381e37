/** The stories' statements are prepared once per connection (src/db/prepared.ts). */
export { prepared } from '../db/prepared.js';
