/**
 * A backup asked for while the server runs (`POST /api/admin/backup` and the settings page's
 * button; docs/decisions.md, "Running the service › Backups"): the snapshot in small steps so
 * requests keep being served, with what it found logged once, here.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/open.js';
import { createBackup, SERVER_PAGES_PER_STEP, type BackupResult } from './snapshot.js';

/** Writes a snapshot of the running library and logs it (and any image it could not find). */
export async function backUpNow(db: Db, dataDir: string, log: FastifyBaseLogger): Promise<BackupResult> {
  const result = await createBackup(db.$client, dataDir, { pagesPerStep: SERVER_PAGES_PER_STEP });
  if (result.missingImages.length > 0) {
    log.warn({ missingImages: result.missingImages }, 'backup: referenced images were missing; their references were cleared in the copy');
  }
  log.info({ path: result.path, sizeBytes: result.sizeBytes }, 'backup written');
  return result;
}
