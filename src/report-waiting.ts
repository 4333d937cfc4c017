// Before a thread's run decides what to send, the end of the job its thread was waiting for — left
// at work by a run with `wait: false` — is written first, as that run asked, whatever this run then
// does (a push held back by `followUp` included). A job still at work stays waiting; a fault
// reading it leaves it to a later run.
import { ServiceError } from './service/client.js';
import type { AgentJob } from './core/job.js';
import { coreLog, describeThrown } from './core/log.js';
import { label } from './core/untrusted.js';
import { howEnded, reported, waitingEnd } from './core/waiting.js';
import type { Memory, Waiting } from './core/ports.js';
import type { JobRun } from './execute/job-run.js';
import type { AgentClient } from './service/client.js';
import type { Accepted, LazyGitHub } from './main.js';

/** What was read first: the thread's memory (its record as the waiting job's end left it), and that job as read. */
export interface Recalled {
  memory: Memory;
  job?: AgentJob;
}

/**
 * On a thread: what earlier runs left, read once for the whole run, and the end of the job it was
 * waiting for written first. `undefined` where the decision reads for itself; a fault reading the
 * thread rejects, and the decision ends the step with it (nothing sent).
 */
export async function reportWaiting(
  accepted: Accepted,
  client: Pick<AgentClient, 'getJob'>,
  github: LazyGitHub,
  step: JobRun,
): Promise<Recalled | undefined> {
  const { features } = accepted;
  if (!features.thread || !features.load || !features.recall || features.dryRun) return undefined;
  const steps = await github.load();
  if (!steps) return undefined;
  const { signal } = step;
  const memory = await steps.decide.recall(true, signal);
  const note = memory.note;
  const waiting = note?.waiting;
  if (!note || !waiting) return { memory };
  const id = label(note.job);
  const job = await readWaitingJob(client, note.job, waiting, signal);
  if (job === 'unread') return { memory };
  const end = waitingEnd(waiting, job, step.clock.now());
  if (end.kind === 'at-work') {
    coreLog.info(`Agent job ${id}, which run ${waiting.run} left at work, is still at work.`);
    return { memory, ...(job ? { job } : {}) };
  }
  coreLog.info(
    `Agent job ${id}, which run ${waiting.run} left at work, ${howEnded(end)}: its end is reported on the thread first.`,
  );
  await steps.report.waitingEnd(note, end, signal);
  return { memory: { ...memory, note: reported(note) }, ...(job ? { job } : {}) };
}

/**
 * The waiting job as the service answers: `undefined` when it no longer knows it (404); `unread`,
 * with a warning, on any other fault, for a later run to report.
 */
export async function readWaitingJob(
  client: Pick<AgentClient, 'getJob'>,
  id: string,
  waiting: Waiting,
  signal: AbortSignal,
): Promise<AgentJob | undefined | 'unread'> {
  try {
    return await client.getJob(id, { signal });
  } catch (error) {
    const gone = error instanceof ServiceError && error.fault.kind === 'http' && error.fault.status === 404;
    if (gone) return undefined;
    if (!signal.aborted)
      coreLog.warning(
        `Could not read agent job ${label(id)}, which run ${waiting.run} left at work (${describeThrown(error)}); a later run reports its end.`,
      );
    return 'unread';
  }
}
