import path from 'node:path';
import fp from 'fastify-plugin';
import { migrateSafely } from '../db/migrate.js';
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
 * first), and closes it (checkpointing the WAL) when the app closes, after every other
 * plugin's onClose has run.
 */
export const dbPlugin = fp<DbPluginOptions>(
  async (app, { dataDir }) => {
    const db = openDatabase(path.join(dataDir, DATABASE_FILE_NAME));
    try {
      await migrateSafely(db, dataDir, app.log);
    } catch (error) {
      closeDatabase(db);
      throw error;
    }
    app.decorate('db', db);
    app.addHook('onClose', async () => closeDatabase(db));
  },
  { name: 'storyshelf-db', fastify: '5.x' },
);
