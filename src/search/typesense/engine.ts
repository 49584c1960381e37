/**
 * Typesense as a second engine in front of the embedded one (docs/decisions.md, "Search ›
 * Engines"; docs/typesense.md). The routes see one SearchEngine; this one decides per request:
 *
 * - Searches, suggestions and author searches go to Typesense while it is reachable, its
 *   collections exist and it is caught up (no change waiting longer than `maxLagMs`); otherwise,
 *   and on any failure or timeout of a Typesense query, the embedded engine answers. The
 *   embedded engine is always up to date (it is written in every write transaction), so falling
 *   back never loses a change. Each change of state is logged once, not each request.
 * - Every change is queued in the outbox in the write's own transaction ({@link documentsChanged})
 *   and delivered by the worker (./worker.ts).
 * - When Typesense stops answering, a probe with exponential backoff and jitter (1 s doubling to
 *   30 s) watches `/health`; when it answers again, queued rows are made due and the worker
 *   drains them.
 * - Collections are created on first use, and rebuilt at start-up when they lack a field this
 *   version declares (made by an older one); reindex rebuilds the embedded index, then builds
 *   fresh Typesense collections and swaps the aliases (./reindex.ts).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { TypesenseConfig } from '../../config.js';
import type { Db, DbOrTx } from '../../db/open.js';
import { bookkeepingTransaction } from '../../db/bookkeeping.js';
import type { AuthorDto } from '../../schemas/author.js';
import type { SearchHealth, StorySearchDto } from '../../schemas/search.js';
import { storedNamesByFold } from '../../tags/repository.js';
import type { TagKind } from '../../schemas/tag.js';
import {
  emptyPage,
  type AuthorSearchRequest,
  type ReindexOutcome,
  type SearchChanges,
  type SearchEngine,
  type SearchPage,
  type StorySearchPage,
  type StorySearchRequest,
} from '../engine.js';
import { enqueueChanges, oldestFreshChange, pendingCount, retryAllNow } from './outbox.js';
import { describeError, httpStatusOf, isUnavailable, TypesenseGateway, type GatewayOptions } from './client.js';
import {
  authorSearchPage,
  authorSearchPlan,
  MATCHES_NOTHING,
  NOT_EXPRESSIBLE,
  storySearchPage,
  storySearchPlan,
  suggestionParameters,
  suggestionsFrom,
  typoCorrectedText,
  typoSearchParameters,
} from './query.js';
import { correctionCandidates } from '../embedded/corrections.js';
import { sqliteClient } from '../../db/statements.js';
import { rebuildCollections } from './reindex.js';
import { aliasName, COLLECTION_KINDS, missingFields, type AuthorDocument, type StoryDocument } from './schema.js';
import { highlightTags } from './snippet.js';
import { OutboxWorker, type WorkerOptions } from './worker.js';

export interface TypesenseEngineOptions {
  /** A Typesense query slower than this is abandoned and the embedded engine answers. */
  queryTimeoutMs?: number;
  /** Searches stay on the embedded engine while a change has waited longer than this. */
  maxLagMs?: number;
  probeMinMs?: number;
  probeMaxMs?: number;
  gateway?: GatewayOptions;
  worker?: WorkerOptions;
}

const DEFAULTS = { queryTimeoutMs: 2000, maxLagMs: 10_000, probeMinMs: 1000, probeMaxMs: 30_000 };

export class TypesenseSearchEngine implements SearchEngine {
  readonly kind = 'typesense' as const;
  private readonly gateway: TypesenseGateway;
  private readonly worker: OutboxWorker;
  private readonly options: typeof DEFAULTS;
  private readonly tags = highlightTags();
  /** undefined until the first answer or failure. */
  private reachable: boolean | undefined;
  /** The aliases exist (checked, or created on first use). */
  private ready = false;
  private behind = false;
  private preparing: Promise<void> | undefined;
  private rebuilding: Promise<number> | undefined;
  /** A reindex asked for while Typesense was away: run when it is back. */
  private rebuildWanted = false;
  private probeTimer: NodeJS.Timeout | undefined;
  private probeDelayMs: number;
  private nudgeScheduled = false;
  /** While a rebuild runs: what the worker sent to the old collections, to send again after the swap. */
  private sentDuringRebuild: { kind: 'story' | 'author'; id: string }[] | undefined;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly embedded: SearchEngine,
    private readonly config: TypesenseConfig,
    private readonly log: FastifyBaseLogger,
    options: TypesenseEngineOptions = {},
  ) {
    this.options = {
      queryTimeoutMs: options.queryTimeoutMs ?? DEFAULTS.queryTimeoutMs,
      maxLagMs: options.maxLagMs ?? DEFAULTS.maxLagMs,
      probeMinMs: options.probeMinMs ?? DEFAULTS.probeMinMs,
      probeMaxMs: options.probeMaxMs ?? DEFAULTS.probeMaxMs,
    };
    this.probeDelayMs = this.options.probeMinMs;
    this.gateway = new TypesenseGateway(config, log, options.gateway);
    this.worker = new OutboxWorker(
      db,
      this.gateway,
      config.collectionPrefix,
      {
        canDeliver: () => this.reachable === true && this.ready && !this.closed,
        onUnavailable: (error) => this.markUnreachable(error),
        onCollectionMissing: (error) => this.markNotReady(error),
        onAnswered: () => this.markReachable(),
        sending: (rows) => {
          for (const row of rows) this.sentDuringRebuild?.push({ kind: row.kind, id: row.entityId });
        },
      },
      log,
      options.worker,
    );
  }

  /** Checks (or creates) the collections in the background; the app does not wait for Typesense. */
  start(): void {
    void this.prepare();
  }

  /**
   * The exact search; when it found nothing, once more with one typo per word (docs/decisions.md,
   * "Typo tolerance"), whose answer names the text it was read as.
   */
  async searchStories(request: StorySearchRequest): Promise<StorySearchPage> {
    if (!this.servesQueries()) return this.embedded.searchStories(request);
    const plan = storySearchPlan(this.withStoredTagNames(request), this.tags);
    if (plan === NOT_EXPRESSIBLE) return this.embedded.searchStories(request);
    if (plan === MATCHES_NOTHING) return this.embedded.searchStories(request);
    try {
      const stories = this.alias('stories');
      const result = await this.gateway.search<StoryDocument>(stories, plan.parameters, this.options.queryTimeoutMs);
      this.markReachable();
      const typoParameters = result.found === 0 ? typoSearchParameters(plan.parameters, plan.parsed) : undefined;
      if (typoParameters !== undefined) {
        const retried = await this.gateway.search<StoryDocument>(stories, typoParameters, this.options.queryTimeoutMs);
        if (retried.found > 0) {
          const client = sqliteClient(this.db);
          const fallback = (word: string) => correctionCandidates(client, word, plan.parsed.words.join(''), 1)[0];
          return { ...storySearchPage(retried, request, plan.parsed, this.tags), correctedQuery: typoCorrectedText(retried, plan.parsed, fallback) };
        }
      }
      return storySearchPage(result, request, plan.parsed, this.tags);
    } catch (error) {
      this.queryFailed(error);
      return this.embedded.searchStories(request);
    }
  }

  async suggest(text: string, limit: number): Promise<string[]> {
    const parameters = suggestionParameters(text);
    if (parameters === undefined) return [];
    if (!this.servesQueries()) return this.embedded.suggest(text, limit);
    try {
      const result = await this.gateway.search<Partial<StoryDocument>>(this.alias('stories'), parameters, this.options.queryTimeoutMs);
      this.markReachable();
      return suggestionsFrom(result, text, limit);
    } catch (error) {
      this.queryFailed(error);
      return this.embedded.suggest(text, limit);
    }
  }

  async searchAuthors(request: AuthorSearchRequest): Promise<SearchPage<AuthorDto>> {
    if (!this.servesQueries()) return this.embedded.searchAuthors(request);
    const plan = authorSearchPlan(request);
    if (plan === NOT_EXPRESSIBLE) return this.embedded.searchAuthors(request);
    if (plan === MATCHES_NOTHING) return emptyPage(request);
    try {
      const result = await this.gateway.search<AuthorDocument>(this.alias('authors'), plan.parameters, this.options.queryTimeoutMs);
      this.markReachable();
      return authorSearchPage(result, request);
    } catch (error) {
      this.queryFailed(error);
      return this.embedded.searchAuthors(request);
    }
  }

  /**
   * Rebuilds the embedded index, then the Typesense collections (zero downtime: the aliases move
   * when the new ones are full). With Typesense away, the embedded rebuild is done and the
   * Typesense one runs as soon as it is back.
   */
  async reindex(): Promise<ReindexOutcome> {
    // The embedded rebuild tells no listener: it changes no story or author, so the outbox gets
    // nothing from it, while writes between its batches are queued as always.
    const embeddedCount = await this.embedded.reindex().then((outcome) => outcome.storiesCount);
    if (this.reachable === false) {
      this.rebuildWanted = true;
      return { storiesCount: embeddedCount, detail: 'Typesense is unreachable: its collections will be rebuilt when it is back' };
    }
    try {
      const storiesCount = await this.rebuild();
      return { storiesCount, detail: 'Typesense collections rebuilt' };
    } catch (error) {
      if (isUnavailable(error)) {
        this.markUnreachable(error);
        this.rebuildWanted = true;
        return { storiesCount: embeddedCount, detail: 'Typesense is unreachable: its collections will be rebuilt when it is back' };
      }
      this.log.error({ error: describeError(error) }, 'Typesense collections could not be rebuilt');
      return { storiesCount: embeddedCount, detail: `Typesense collections could not be rebuilt: ${describeError(error)}` };
    }
  }

  /**
   * 200 when a Typesense node answers `/health` and accepts the API key, else 503; both carry
   * the outbox length.
   */
  async health(): Promise<SearchHealth> {
    const pendingChanges = pendingCount(this.db);
    const nodes = `${this.config.urls.length} node${this.config.urls.length === 1 ? '' : 's'}`;
    try {
      await this.gateway.check(this.alias('stories'));
      this.markReachable();
      const serving = this.servesQueries()
        ? 'searches go to it'
        : this.ready
          ? 'searches use the embedded engine until it has caught up'
          : 'its collections are being prepared; searches use the embedded engine meanwhile';
      return { status: 'healthy', message: `Typesense (${nodes}) is available; ${serving}`, engine: this.kind, pendingChanges };
    } catch (error) {
      this.markUnreachable(error);
      return {
        status: 'unhealthy',
        message: `Typesense (${nodes}) is not available; searches use the embedded engine and changes wait in the outbox`,
        error: describeError(error),
        engine: this.kind,
        pendingChanges,
      };
    }
  }

  /** Queues the changed documents in the write's transaction, then nudges the worker after it commits. */
  documentsChanged(tx: DbOrTx, changes: SearchChanges): void {
    if (this.closed) return;
    enqueueChanges(tx, changes);
    if (this.nudgeScheduled) return;
    this.nudgeScheduled = true;
    // better-sqlite3 transactions are synchronous: by the time this runs the write has committed.
    setImmediate(() => {
      this.nudgeScheduled = false;
      this.worker.nudge();
    });
  }

  /** Delivers what it can within `timeoutMs` (shutdown, docs/decisions.md, "Running the service"); logs what stays queued. */
  async flush(timeoutMs: number): Promise<void> {
    if (this.closed) return;
    const left = await this.worker.flush(timeoutMs);
    if (left > 0) this.log.info({ pendingChanges: left }, 'search changes stay queued for Typesense until the next start');
  }

  /** Stops a running embedded rebuild; a Typesense rebuild is asynchronous and ends with close. */
  stopLongWork(): void {
    this.embedded.stopLongWork();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.probeTimer !== undefined) clearTimeout(this.probeTimer);
    this.worker.stop();
    this.gateway.close();
    await this.embedded.close();
  }

  /** Resolves when the worker has nothing in flight (tests). */
  async idle(): Promise<void> {
    await this.preparing;
    await this.worker.idle();
  }

  /**
   * The tag filters (`tags` and each kind's) with each name replaced by the stored name of the tag it folds to (docs/decisions.md,
   * "Name keys (case folding)"): documents carry stored names, which are as unique as the fold keys, so "STRASSE"
   * finds the tag stored as "straße". A name no tag has is left as it is and matches nothing.
   */
  private withStoredTagNames(request: StorySearchRequest): StorySearchRequest {
    const byKind = Object.entries(request.tagsByKind ?? {}) as [TagKind, readonly string[]][];
    const asked = [...(request.tags ?? []), ...byKind.flatMap(([, names]) => names)];
    if (asked.length === 0) return request;
    const stored = storedNamesByFold(this.db, asked);
    const storedOf = (names: readonly string[]) => names.map((name) => stored.get(name) ?? name);
    return {
      ...request,
      ...(request.tags === undefined ? {} : { tags: storedOf(request.tags) }),
      ...(byKind.length === 0 ? {} : { tagsByKind: Object.fromEntries(byKind.map(([kind, names]) => [kind, storedOf(names)])) }),
    };
  }

  private alias(kind: 'stories' | 'authors'): string {
    return aliasName(this.config.collectionPrefix, kind);
  }

  private servesQueries(): boolean {
    if (this.closed || this.reachable !== true || !this.ready) return false;
    const oldest = oldestFreshChange(this.db);
    const lagMs = oldest === undefined ? 0 : Date.now() - oldest;
    const behind = lagMs > this.options.maxLagMs;
    if (behind !== this.behind) {
      this.behind = behind;
      if (behind) {
        this.log.info(
          { lagMs, pendingChanges: pendingCount(this.db) },
          'Typesense is behind the library: searches use the embedded engine until it has caught up',
        );
      } else {
        this.log.info('Typesense has caught up: searches go to it again');
      }
    }
    return !behind;
  }

  private queryFailed(error: unknown): void {
    if (isUnavailable(error)) this.markUnreachable(error);
    else if (httpStatusOf(error) === 404) this.markNotReady(error);
    else this.log.warn({ error: describeError(error) }, 'Typesense refused a query; the embedded engine answered it');
  }

  private markReachable(): void {
    if (this.closed || this.reachable === true) return;
    const wasDown = this.reachable === false;
    this.reachable = true;
    this.probeDelayMs = this.options.probeMinMs;
    this.log.info(
      { nodes: this.config.urls.length },
      wasDown ? 'Typesense is reachable again: searches go to it and queued changes are delivered' : 'Typesense is reachable',
    );
    if (wasDown) retryAllNow(this.db);
    if (!this.ready || this.rebuildWanted) void this.prepare();
    else this.worker.nudge();
  }

  private markUnreachable(error: unknown): void {
    if (this.closed) return;
    if (this.reachable !== false) {
      this.reachable = false;
      this.log.warn(
        { error: describeError(error), pendingChanges: pendingCount(this.db) },
        'Typesense is unreachable: searches use the embedded engine and changes wait in the outbox',
      );
    }
    this.scheduleProbe();
  }

  /** A collection is gone (dropped by hand?): rebuild from the tables. */
  private markNotReady(error: unknown): void {
    if (this.closed || !this.ready) return;
    this.ready = false;
    this.log.warn({ error: describeError(error) }, 'a Typesense collection is missing: searches use the embedded engine while it is rebuilt');
    void this.prepare();
  }

  /** While Typesense is away: probe `/health` with exponential backoff and jitter. */
  private scheduleProbe(): void {
    this.afterBackoff(() => this.probe(), true);
  }

  /**
   * Runs `next` once the backoff delay has passed (doubling each time up to `probeMaxMs`; with
   * `jitter`, a random half to all of it), unless one is already waiting or the engine closed.
   */
  private afterBackoff(next: () => Promise<void>, jitter: boolean): void {
    if (this.closed || this.probeTimer !== undefined) return;
    const delay = jitter ? this.probeDelayMs / 2 + Math.random() * (this.probeDelayMs / 2) : this.probeDelayMs;
    this.probeDelayMs = Math.min(this.options.probeMaxMs, this.probeDelayMs * 2);
    this.probeTimer = setTimeout(() => {
      this.probeTimer = undefined;
      void next();
    }, delay);
    this.probeTimer.unref();
  }

  private async probe(): Promise<void> {
    if (this.closed) return;
    try {
      await this.gateway.check(this.alias('stories'));
      this.markReachable();
    } catch (error) {
      this.markUnreachable(error);
    }
  }

  /**
   * Makes sure the aliases exist (creating and filling the collections on first use) and runs a
   * rebuild that was asked for while Typesense was away. One at a time.
   */
  private prepare(): Promise<void> {
    this.preparing ??= (async () => {
      try {
        if (!this.ready) {
          const targets = await Promise.all(COLLECTION_KINDS.map((kind) => this.gateway.aliasTarget(this.alias(kind))));
          const collections = await this.gateway.collectionFields();
          const declared = targets.map((target) => (target === undefined ? undefined : collections.get(target)));
          const missing = COLLECTION_KINDS.flatMap((kind, index) => (declared[index] === undefined ? [] : missingFields(kind, declared[index])));
          if (declared.includes(undefined)) {
            this.log.info('creating the Typesense collections and importing the library');
            await this.rebuild();
          } else if (missing.length > 0) {
            // A collection made by an older version: searches on the new fields would fail against it.
            this.log.info({ missing }, 'the Typesense collections lack fields this version searches on: rebuilding them');
            await this.rebuild();
          }
          this.ready = true;
        }
        if (this.rebuildWanted) await this.rebuild();
        this.markReachable();
        this.worker.nudge();
      } catch (error) {
        if (isUnavailable(error)) this.markUnreachable(error);
        else {
          this.log.error({ error: describeError(error) }, 'the Typesense collections could not be prepared; retrying later');
          this.scheduleProbeForPrepare();
        }
      } finally {
        this.preparing = undefined;
      }
    })();
    return this.preparing;
  }

  /** After a refusal (not an outage), prepare again later with the probe's backoff. */
  private scheduleProbeForPrepare(): void {
    this.afterBackoff(() => this.prepare(), false);
  }

  /**
   * One rebuild at a time. The worker keeps delivering to the old collections meanwhile (so they
   * stay fresh); it is held for the alias swap, and what it delivered during the rebuild is queued
   * again, so it reaches the new collections too.
   */
  private rebuild(): Promise<number> {
    this.rebuilding ??= (async () => {
      this.rebuildWanted = false;
      const sent: { kind: 'story' | 'author'; id: string }[] = [];
      this.sentDuringRebuild = sent;
      const aroundSwap = async (swap: () => Promise<void>) => {
        await this.worker.pause();
        try {
          await swap();
        } finally {
          this.sentDuringRebuild = undefined;
          this.requeue(sent);
          this.worker.resume();
        }
      };
      try {
        const storiesCount = await rebuildCollections(this.db, this.gateway, this.config.collectionPrefix, this.log, aroundSwap);
        this.ready = true;
        return storiesCount;
      } finally {
        this.sentDuringRebuild = undefined;
        this.rebuilding = undefined;
      }
    })();
    return this.rebuilding;
  }

  private requeue(entities: readonly { kind: 'story' | 'author'; id: string }[]): void {
    if (entities.length === 0 || this.closed) return;
    const changes: SearchChanges = { stories: [], authors: [] };
    for (const { kind, id } of entities) (kind === 'story' ? changes.stories : changes.authors).push({ seq: 0, id });
    bookkeepingTransaction(this.db, (tx) => enqueueChanges(tx, changes));
  }
}
