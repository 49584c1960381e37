import type { Db } from '../db/open.js';
import { bookkeepingTransaction } from '../db/bookkeeping.js';
import { Conflict, invalidField, NotFound, type ErrorDetails } from '../errors.js';
import { newId, nowIso } from '../lib/clock.js';
import { cleanName } from '../lib/names.js';
import { collect } from '../validation.js';
import { DEFAULT_SCOPES, SCOPES, type CreatedTokenDto, type Scope, type TokenDto } from '../schemas/tokens.js';
import { countTokens, deleteToken, findTokenByHash, findTokenByKosyncKey, insertToken, listTokens, touchToken, type TokenRow } from './repository.js';
import { kosyncKeyHash, kosyncKeyOf, newSecret, secretHash } from './secret.js';

/** A token that checked out: who it is and what it may do. */
export interface DeviceCredential {
  id: string;
  name: string;
  scopes: readonly Scope[];
}

/** A household has a few readers; 100 is far beyond that and keeps the settings list one page. */
export const MAX_TOKENS = 100;

/**
 * `lastUsedAt` is written at most once a minute per token: an e-reader paging a catalog sends a
 * request per cover, and a write per read would turn browsing into a write load.
 */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Named device tokens (docs/decisions.md, "Device tokens"): made from the settings page or the
 * API, shown once, checked by hash, revoked one by one. Independent of the password: changing
 * it leaves every device signed in.
 */
export class DeviceTokens {
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  create(name: string, scopes: readonly Scope[] = DEFAULT_SCOPES): CreatedTokenDto {
    const { secret, prefix } = newSecret();
    // Kept in SCOPES order whatever order they were asked in, so lists read alike.
    const ordered = SCOPES.filter((scope) => scopes.includes(scope));
    const row: TokenRow = {
      id: newId(),
      name: cleanTokenName(name),
      prefix,
      hash: secretHash(secret),
      kosyncKeyHash: kosyncKeyHash(kosyncKeyOf(secret)),
      scopes: ordered.join(','),
      createdAt: nowIso(),
      lastUsedAt: null,
    };
    bookkeepingTransaction(this.db, (tx) => {
      if (countTokens(tx) >= MAX_TOKENS) throw new Conflict(`At most ${MAX_TOKENS} device tokens; revoke one first`);
      insertToken(tx, row);
    });
    return { id: row.id, name: row.name, token: secret, prefix, scopes: ordered, createdAt: row.createdAt };
  }

  list(): TokenDto[] {
    return listTokens(this.db).map((row) => ({
      id: row.id,
      name: row.name,
      prefix: row.prefix,
      scopes: parseScopes(row.scopes),
      createdAt: row.createdAt,
      lastUsedAt: row.lastUsedAt,
    }));
  }

  /** Deletes the token: its next request is refused. 404 when there is no such token. */
  revoke(id: string): void {
    const deleted = bookkeepingTransaction(this.db, (tx) => deleteToken(tx, id));
    this.touched.delete(id);
    if (!deleted) throw new NotFound('Device token not found');
  }

  /** The token this secret belongs to, or undefined. */
  verify(secret: string): DeviceCredential | undefined {
    if (secret === '' || secret.length > 200) return undefined;
    return this.used(findTokenByHash(this.db, secretHash(secret)));
  }

  /** The token whose secret's MD5 is `md5Hex` (KOReader's `x-auth-key`), or undefined. */
  verifyKosyncKey(md5Hex: string): DeviceCredential | undefined {
    if (!/^[0-9a-fA-F]{32}$/.test(md5Hex)) return undefined;
    return this.used(findTokenByKosyncKey(this.db, kosyncKeyHash(md5Hex)));
  }

  private used(row: TokenRow | undefined): DeviceCredential | undefined {
    if (row === undefined) return undefined;
    const now = this.now();
    const last = this.touched.get(row.id) ?? 0;
    if (now - last >= TOUCH_INTERVAL_MS) {
      this.touched.set(row.id, now);
      try {
        touchToken(this.db, row.id, new Date(now).toISOString());
      } catch {
        // A stamp is bookkeeping: a busy database (a checkpoint holding the write lock past the
        // busy timeout) must not turn the device's read into a 500. The next minute retries.
        this.touched.delete(row.id);
      }
    }
    return { id: row.id, name: row.name, scopes: parseScopes(row.scopes) };
  }
}

/** A name as stored: trimmed and NFC; blank is a 400 (the schema caps the length). */
function cleanTokenName(raw: string): string {
  const name = cleanName(raw);
  if (name === '') throw invalidField('name', 'must not be blank');
  return name;
}

/** The rule offences of a create body's schema-valid fields, for the route's `bodyRules` (src/validation.ts). */
export function tokenBodyIssues(body: { name?: string }): ErrorDetails {
  const details: ErrorDetails = {};
  const name = body.name;
  if (name !== undefined) collect(details, () => cleanTokenName(name));
  return details;
}

function parseScopes(stored: string): Scope[] {
  return SCOPES.filter((scope) => stored.split(',').includes(scope));
}
