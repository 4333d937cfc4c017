// Which docs pull request the thread's record holds as its job's own: what the run that read the
// job saw, kept in the note (a pull request's or issue's thread) or linked by the job's completed
// commit status (a branch's). A docs pull request is closed as superseded only where the record
// holds it so: never on the service's word alone, which may name any pull request.
import type { AgentJob } from './job.js';
import type { Memory, ThreadNote, WaitingNews } from './ports.js';
import { isDocsPullPage, outputLink, samePage } from './pull-request.js';

/**
 * A job's docs pull request as a record keeps it: the service's link when it is a pull request's
 * page (without a trailing slash); else none.
 */
export function docsPrOf(job: Pick<AgentJob, 'prLink'> | undefined): string | undefined {
  const link = outputLink(job?.prLink).replace(/\/+$/, '');
  return link && isDocsPullPage(link) ? link : undefined;
}

/**
 * The docs pull request the thread's record holds as job `jobId`'s (this action's job opened it):
 * a pull request's or issue's note while that job is the thread's, else a branch's status that
 * names the job and links it.
 */
export function heldDocsPr(memory: Pick<Memory, 'note' | 'branch'>, jobId: string): string | undefined {
  const { note, branch } = memory;
  if (note) return note.job === jobId ? note.docsPr : undefined;
  return branch?.job === jobId ? branch.docsPr : undefined;
}

/** Whether the thread's record holds `link` as the docs pull request of its job `jobId`. */
export function holdsDocsPr(memory: Pick<Memory, 'note' | 'branch'>, jobId: string, link: string): boolean {
  const held = heldDocsPr(memory, jobId);
  return held !== undefined && samePage(link, held);
}

/** The record once a job it waited for ended: its docs pull request, when it has one, is the job's. */
export function withEndDocsPr(note: ThreadNote, end: WaitingNews): ThreadNote {
  const docsPr = end.kind === 'ended' && note.waiting ? docsPrOf(end.job) : undefined;
  return docsPr ? { ...note, docsPr } : note;
}
