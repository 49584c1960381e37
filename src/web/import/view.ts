import type { JobDto } from '../../schemas/job.js';
import type { PageModel } from '../render.js';

/** One job as a line of the recent-imports list. */
export interface JobLine {
  href: string;
  sentence: string;
}

export interface ImportPageView extends PageModel {
  /** Why the last upload was refused, shown above the form. */
  error: string | undefined;
  recent: JobLine[];
}

/** The progress fragment: polled every 2 s while the job is unfinished. */
export interface JobProgressView {
  id: string;
  href: string;
  progressHref: string;
  cancelAction: string;
  finished: boolean;
  sentence: string;
  done: number;
  total: number;
  errors: Array<{ file: string; error: string }>;
  /** More failures than the listed ones. */
  moreErrors: number;
}

export interface JobPageView extends PageModel {
  progress: JobProgressView;
}

const STATUS_WORDS: Record<JobDto['status'], string> = {
  queued: 'Waiting to start',
  running: 'Importing',
  done: 'Finished',
  failed: 'Stopped by an error',
  cancelled: 'Cancelled',
};

function count(n: number, word: string): string {
  return `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;
}

/** "Importing: 3 of 10 files (2 imported, 1 failed)." */
export function jobSentence(job: JobDto): string {
  return `${STATUS_WORDS[job.status]}: ${(job.done + job.failed).toLocaleString('en')} of ${count(job.total, 'file')} (${job.done.toLocaleString('en')} imported, ${job.failed.toLocaleString('en')} failed).`;
}

export function jobHref(id: string): string {
  return `/jobs/${id}`;
}

export function jobProgressView(job: JobDto): JobProgressView {
  const href = jobHref(job.id);
  return {
    id: job.id,
    href,
    progressHref: `${href}/progress`,
    cancelAction: `${href}/cancel`,
    finished: job.status !== 'queued' && job.status !== 'running',
    sentence: jobSentence(job),
    done: job.done + job.failed,
    total: Math.max(job.total, job.done + job.failed),
    errors: job.errors,
    moreErrors: Math.max(0, job.failed - job.errors.length),
  };
}

export function jobLine(job: JobDto): JobLine {
  return { href: jobHref(job.id), sentence: `${job.createdAt.slice(0, 16).replace('T', ' ')} UTC — ${jobSentence(job)}` };
}
