/**
 * Lowering a worker thread's CPU priority, so that when every core is busy the event loop (which
 * answers the cheap reads: a story, a page of a list) runs first and a long search waits, rather
 * than the other way round (docs/decisions.md, "Search worker pool").
 *
 * Linux schedules threads one by one, and `setpriority` given a thread's id changes that thread
 * only; `/proc/thread-self` names the calling thread's id. Elsewhere (or where lowering is
 * refused) nothing changes: the threads just share the cores evenly, as before.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** True when the calling thread's niceness was set to `niceness` (0-19: higher yields more). */
export function lowerThreadPriority(niceness: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const threadId = Number(path.basename(fs.readlinkSync('/proc/thread-self')));
    if (!Number.isSafeInteger(threadId) || threadId <= 0) return false;
    os.setPriority(threadId, niceness);
    return os.getPriority(threadId) === niceness;
  } catch {
    return false;
  }
}
