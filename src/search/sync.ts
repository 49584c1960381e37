import type { Tx } from '../db/transaction.js';

/**
 * Brings the search documents of changed stories and authors up to date inside the current
 * write transaction. The embedded full-text engine fills this in (issue: search).
 */
export function syncSearchDocuments(_tx: Tx): void {}
