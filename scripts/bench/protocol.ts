/** One real response, captured by `scripts/bench.ts` and replayed by `ceiling-server.ts`. */
export interface Capture {
  method: 'GET' | 'POST';
  /** Path and query string, exactly as requested. */
  url: string;
  status: number;
  headers: Record<string, string>;
  bodyBase64: string;
}
