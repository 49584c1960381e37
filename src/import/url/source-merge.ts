/**
 * What a refresh changes (docs/decisions.md, "Sources"): the chapters the library
 * holds are matched with the source's by the source's chapter id (`sourceKey`). A new chapter is
 * appended; a held chapter whose text or title changed is replaced, unless its new text is empty
 * or under a tenth of the old (a stub, a takedown notice, a failed page): then the old text is
 * kept and the plan says so; a held chapter the source no longer has is marked gone and kept. An
 * update never destroys text. Pure: the caller writes the plan in one transaction.
 */

/** A chapter as the library holds it. */
export interface HeldChapter {
  position: number;
  title: string;
  sourceKey: string | null;
  contentPlain: string;
  sourceGoneAt: string | null;
}

/** A chapter as the source has it now: its title, key and plain text (derived by the stored-body rules). */
export interface FreshChapter {
  title: string;
  sourceKey: string;
  plainText: string;
}

export interface MergePlan {
  /** Indexes of fresh chapters to append, in the source's order. */
  added: number[];
  /** Held chapters (by position) to replace with the fresh chapter at `index`. */
  updated: Array<{ position: number; index: number }>;
  /** Held chapters whose fresh text was refused (empty, or under a tenth of the old): kept as they are. */
  kept: Array<{ position: number; index: number }>;
  /** Held chapters the source no longer has, not marked before: to mark gone. */
  gone: number[];
  /** Held chapters marked gone before that the source has again (at `index`), unchanged: to unmark. */
  returned: Array<{ position: number; index: number }>;
}

/** A fresh text this much shorter than the old one is taken for a stub, not a revision. */
const SHRINK_LIMIT = 10;

function refused(old: string, fresh: string): boolean {
  const freshLength = fresh.trim().length;
  return freshLength === 0 || freshLength * SHRINK_LIMIT < old.trim().length;
}

/** The plan that brings `held` up to `fresh` (see the file comment). */
export function planMerge(held: readonly HeldChapter[], fresh: readonly FreshChapter[]): MergePlan {
  const plan: MergePlan = { added: [], updated: [], kept: [], gone: [], returned: [] };
  const byKey = new Map<string, HeldChapter>();
  for (const chapter of held) if (chapter.sourceKey !== null && !byKey.has(chapter.sourceKey)) byKey.set(chapter.sourceKey, chapter);
  const matched = new Set<number>();
  for (const [index, chapter] of fresh.entries()) {
    const mine = byKey.get(chapter.sourceKey);
    if (mine === undefined) {
      plan.added.push(index);
      continue;
    }
    matched.add(mine.position);
    if (mine.contentPlain === chapter.plainText && mine.title === chapter.title) {
      if (mine.sourceGoneAt !== null) plan.returned.push({ position: mine.position, index });
    } else if (mine.contentPlain !== chapter.plainText && refused(mine.contentPlain, chapter.plainText)) {
      plan.kept.push({ position: mine.position, index });
    } else {
      plan.updated.push({ position: mine.position, index });
    }
  }
  for (const chapter of held) if (!matched.has(chapter.position) && chapter.sourceGoneAt === null) plan.gone.push(chapter.position);
  return plan;
}
