// Before a thread's run decides what to send, the end of the job its thread was waiting for — left
// at work by a run with `wait: false` — is written first, as that run asked, whatever this run then
// does (a push held back by `followUp` included). A job the read says is still at work stays
// waiting (requests are queued behind it); a job that cannot be read ends the step before anything
// is sent, and what the thread asked stays owed. A dry run reads the same and writes nothing: it
// decides as the real run would, a job at work included.
import type { AgentJob } from './core/job.js';
import { coreLog } from './core/log.js';
import { label } from './core/untrusted.js';
import { withEndDocsPr } from './core/docs-record.js';
import { howEnded, ownProject, owes, projectKey, settleWaiting, waitingEnd } from './core/ledger.js';
import type { Memory } from './core/ports.js';
import { readThreadJob } from './decide/continuity.js';
import type { JobRun } from './execute/job-run.js';
import type { AgentClient } from './service/client.js';
import type { FaultContext } from './service/errors.js';
import type { Accepted, LazyGitHub } from './accepted.js';

/**
 * What was read first: the thread's memory (its record as the waiting job's end left it), that job
 * as read, and `atWork` when the read said the job is still at work (only then is anything parked).
 */
export interface Recalled {
  memory: Memory;
  job?: AgentJob;
  atWork?: true;
}

/**
 * On a thread: what earlier runs left, read once for the whole run, and the end of the job it was
 * waiting for written first. `undefined` where the decision reads for itself; a fault reading the
 * thread or its waiting job rejects, and the decision ends the step with it (nothing sent).
 */
export async function reportWaiting(
  accepted: Accepted,
  service: { client: Pick<AgentClient, 'getJob'>; faults: FaultContext },
  github: LazyGitHub,
  step: JobRun,
): Promise<Recalled | undefined> {
  const { features, inputs } = accepted;
  if (!features.thread || !features.load || !features.recall) return undefined;
  const steps = await github.load();
  if (!steps) return undefined;
  const { signal, clock } = step;
  const memory = await steps.decide.recall(true, signal);
  const note = memory.note;
  const waiting = note?.waiting;
  // A record of another project's job is not this run's to read (its marker is this step's, so
  // only a record of an earlier version, with no project, is taken as its own).
  if (!note || !waiting || !ownProject(waiting, projectKey(inputs.baseUrl, inputs.projectId), true))
    return { memory };
  // Its end is written already: what the thread asked meanwhile goes with this run.
  if (waiting.ended) return { memory };
  const id = label(note.job);
  const job = await readThreadJob(
    note.job,
    'the thread',
    {
      client: service.client,
      log: coreLog,
      clock,
      deadline: step.startedAt + inputs.timeout,
      context: service.faults,
      signal,
    },
    'its end is written on the thread',
  );
  const end = waitingEnd(waiting, job, clock.now());
  if (end.kind === 'at-work' || end.kind === 'written') {
    coreLog.info(`Agent job ${id}, which run ${waiting.run} left at work, is still at work.`);
    return { memory, ...(job ? { job } : {}), atWork: true };
  }
  const owed = owes(note);
  if (features.dryRun)
    coreLog.notice(
      `Dry run: agent job ${id}, which run ${waiting.run} left at work, ${howEnded(end)}; its end is not written, and the run decides as if it were.`,
    );
  else {
    coreLog.info(
      `Agent job ${id}, which run ${waiting.run} left at work, ${howEnded(end)}: ${end.kind === 'overdue' ? 'the thread is told, and it is still waited for' : 'its end is reported on the thread first'}.`,
    );
    await steps.report.waitingEnd(note, end, owed, signal);
  }
  const after = { ...memory, note: settleWaiting(withEndDocsPr(note, end), end, owed) };
  return {
    memory: after,
    ...(job ? { job } : {}),
    ...(end.kind === 'overdue' ? { atWork: true as const } : {}),
  };
}
