// What execute writes on GitHub while the job works: once the job exists, the reaction on the
// request, the kept comment's first post (or, on a re-run, its update) with the note that names
// the job, the pending status, and, when the docs PR may open in this same repository, the label
// that says the thread's job is at work. Started without waiting; what they leave is a value the core
// hands to the report, whose last writes wait for it.
import { describeThrown } from '../core/log.js';
import type { ExecuteWrites, FirstPost, GitHubStarted } from '../core/ports.js';
import { markAtWork } from './in-flight.js';
import type { GitHubSession } from './session.js';
import { JOB_WORDS } from './status.js';
import {
  acknowledge,
  body,
  carried,
  keptForWriting,
  namedJob,
  note,
  STARTED_BUDGET_MS,
  writeStatus,
} from './writes.js';

export function executeWrites(session: GitHubSession): ExecuteWrites {
  return {
    started(jobId, job, memory, uses = 0): GitHubStarted {
      const queued = carried(memory, uses);
      const reaction = acknowledge(session, queued);
      const { request, status, runUrl } = session;
      if (!request.comment && !status) return { reaction };
      const { signal, done } = session.budget(STARTED_BUDGET_MS);
      // Its faults are its own warnings. The last writes wait for it, as for the rest: the label
      // must be on before the report may take it off.
      const atWork = markAtWork(session, job, signal);
      const posting = Promise.all([
        (async (): Promise<Pick<FirstPost, 'comment' | 'noneSaid'>> => {
          if (!request.comment) return {};
          const { comment, noneSaid } = await keptForWriting(session, signal);
          const head = await session.jobHead(signal);
          if (!comment) return { noneSaid };
          const written = await comment.write(
            (previous) =>
              body(session, {
                jobId,
                job,
                ended: false,
                note: note(session, jobId, head, memory, previous, uses, undefined, undefined, job),
                carried: queued,
              }),
            signal,
          );
          return { comment: written, noneSaid };
        })(),
        (async () =>
          writeStatus(
            session,
            'pending',
            JOB_WORDS.working,
            await namedJob(session, jobId, memory, uses, signal),
            runUrl,
            signal,
          ))(),
      ])
        .then(([first, idLeftOutSaid]): FirstPost => ({ ...first, idLeftOutSaid }))
        .catch((error: unknown): FirstPost => {
          session.warn(`Could not post the comment: ${describeThrown(error)}.`);
          return {};
        })
        .then(async (first) => {
          await atWork;
          return first;
        })
        .finally(done);
      return { reaction, posting };
    },
  };
}
