import { defineConfig } from 'drizzle-kit';

/** drizzle-kit generates migrations from the one schema file; never `push` (STYLE.md, habit 7). */
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema.ts',
  out: './drizzle',
  strict: true,
  verbose: true,
});
