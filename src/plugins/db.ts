import path from 'node:path';
import fp from 'fastify-plugin';
import { startCheckpointer } from '../db/checkpoints.js';
import { migrateSafely } from './db-migrate.js';
import { closeDatabase, DATABASE_FILE_NAME, openDatabase, type Db } from '../db/open.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The library database (Drizzle over better-sqlite3). */
    db: Db;
  }
}

export interface DbPluginOptions {
  dataDir: string;
}

/**
 * Opens `DATA_DIR/library.db`, applies pending migrations (backing a non-empty library up
 * first), checkpoints its WAL from a worker thread (src/db/checkpoints.ts), and closes it
 * (checkpointing the WAL) when the app closes, after every other plugin's onClose has run.
 */
export const dbPlugin = fp<DbPluginOptions>(
  async (app, { dataDir }) => {
    const file = path.join(dataDir, DATABASE_FILE_NAME);
    const db = openDatabase(file);
    try {
      await migrateSafely(db, dataDir, app.log);
    } catch (error) {
      closeDatabase(db);
      throw error;
    }
    const checkpointer = startCheckpointer(db, file, app.log);
    app.decorate('db', db);
    app.addHook('onClose', async () => {
      await checkpointer.stop();
      closeDatabase(db);
    });
  },
  { name: 'storyshelf-db', fastify: '5.x' },
);
