import { defineConfig } from 'drizzle-kit';

/** drizzle-kit generates migrations from the one schema file; never `push` (docs/architecture.md, "Ten habits", 7). */
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema.ts',
  out: './drizzle',
  strict: true,
  verbose: true,
});
