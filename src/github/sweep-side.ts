// A report run's GitHub side (`sweep`): the repository's waiting threads, one thread's records
// (a lane run's), each one's end or overdue mark written once, the hand-off of a thread to its
// lane, a lane run's settling of what could not be sent, and the branches' jobs left at work; each
// write within the last writes' time.
import { describeThrown } from '../core/log.js';
import type { FoundWaiting, SweepSide } from '../core/sweep-ports.js';
import { pullPage, WORKING_LABEL } from '../core/pull-request.js';
import { label } from '../core/untrusted.js';
import { findBranchWaiting, writeBranchEnd } from './branch-waiting.js';
import { describeGitHubFault, faultOf } from './errors.js';
import { handOff } from './hand-off.js';
import { findWaiting, waitingOn, type WaitingThread } from './in-flight.js';
import type { GitHubSession } from './session.js';
import { oweDocsAsk, reportWaitingThread, settleOwed } from './waiting-end.js';
import { answerOnDocs, docsAsks, docsThread } from './docs-asks.js';
import { linkPreview } from './preview.js';
import { FINISH_BUDGET_MS } from './writes.js';

/** The sweep's GitHub side: the repository's waiting threads, and each one's end, within the last writes' time. */
export function sweepSide(session: GitHubSession): SweepSide {
  const { owner, repo } = session.run.repo;
  const foundOf = ({ thread, marker, note, lastQueued }: WaitingThread): FoundWaiting => ({
    number: thread.number,
    pull: thread.pull,
    marker,
    own: marker === session.marker,
    note,
    ...(lastQueued ? { lastQueued } : {}),
  });
  return {
    async waiting(signal) {
      const found = await findWaiting(session, signal).catch((error: unknown) => {
        throw new Error(
          describeGitHubFault(error, {
            what: `list the threads labelled ${WORKING_LABEL} and their comments`,
            token: 'githubToken',
            permission: 'issues: read and pull-requests: read',
            repo: `${owner}/${repo}`,
          }),
        );
      });
      return found.map(foundOf);
    },
    async thread(number, signal) {
      const api = session.forRepo();
      // A pull request's number, or an issue's (GitHub's 404 for a number that is no pull request).
      const pull = await session
        .retrying(() => api.getPull({ owner, repo, pull_number: number }, signal), signal)
        .then(
          () => true,
          (error: unknown) => {
            if (faultOf(error).notFound) return false;
            throw error;
          },
        );
      const found = await waitingOn(session, { owner, repo, number, pull, fork: false }, signal).catch(
        (error: unknown) => {
          throw new Error(
            describeGitHubFault(error, {
              what: `read the comments of #${number}`,
              token: 'githubToken',
              permission: 'issues: read and pull-requests: read',
              repo: `${owner}/${repo}`,
            }),
          );
        },
      );
      return { pull, found: found.map(foundOf) };
    },
    async handOff(number, cancellation, docsAsk) {
      const { signal, done } = session.budget(FINISH_BUDGET_MS, cancellation);
      try {
        return await handOff(session, number, signal, docsAsk);
      } finally {
        done();
      }
    },
    async docsThread(link, signal) {
      const found = await docsThread(session, link, signal);
      if (found.why) session.say(`Nothing to hand on: ${found.why}.`);
      return found.number;
    },
    async docsAsks(link, number, cancellation) {
      const { signal, done } = session.budget(FINISH_BUDGET_MS, cancellation);
      try {
        return await docsAsks(session, link, number, signal);
      } finally {
        done();
      }
    },
    async linkPreview({ number, pull, marker }, docs, cancellation) {
      const { signal, done } = session.budget(FINISH_BUDGET_MS, cancellation);
      const thread = { owner, repo, number, pull, fork: false };
      try {
        return await linkPreview(session, { thread, marker: marker ?? session.marker }, docs, signal);
      } catch (error) {
        session.warn(`Could not link the preview on #${number}: ${describeThrown(error)}.`);
        return undefined;
      } finally {
        done();
      }
    },
    async pullOfCommit(sha, signal) {
      const pulls = await session.retrying(
        () => session.forRepo().pullsOfCommit({ owner, repo, commit_sha: sha }, signal),
        signal,
      );
      const pr = pulls.find((p) => p.head?.sha === sha);
      return pr ? pullPage(session.run.serverUrl, { owner, repo, number: pr.number }) : undefined;
    },
    async oweDocs(found, link, cancellation) {
      const { signal, done } = session.budget(FINISH_BUDGET_MS, cancellation);
      const thread = { owner, repo, number: found.number, pull: found.pull, fork: false };
      try {
        const pinned = session.pinnedTo({ thread, marker: found.marker });
        // Said once, when the record first owes it: a later request there is queued the same way.
        const owed = await oweDocsAsk(pinned, found.note.job, link, signal);
        if (owed !== 'written') return owed !== false;
        await answerOnDocs(
          session,
          link,
          [],
          `Queued: the agent is still at work on job ${label(found.note.job)}, for #${found.number}. What was asked here is sent to it when it is done, with anything else asked meanwhile.`,
          signal,
        );
        return true;
      } catch (error) {
        session.warn(`Could not update the record of #${found.number}: ${describeThrown(error)}.`);
        return true;
      } finally {
        done();
      }
    },
    async branchWaiting(signal) {
      return findBranchWaiting(session, signal).catch((error: unknown) => {
        throw new Error(
          describeGitHubFault(error, {
            what: "list the branches' jobs left at work (refs/agent-job-action/waiting/…) or the default branch's newest commits, and their statuses",
            token: 'githubToken',
            permission: 'contents: read and statuses: read',
            repo: `${owner}/${repo}`,
          }),
        );
      });
    },
    async reportBranchEnd(found, end, cancellation) {
      const { signal, done } = session.budget(FINISH_BUDGET_MS, cancellation);
      try {
        await writeBranchEnd(session, found, end, signal);
      } catch (error) {
        session.warn(
          `Could not report the end of agent job ${label(found.job)} on the branch: ${describeThrown(error)}.`,
        );
      } finally {
        done();
      }
    },
    async pull(number, signal) {
      const api = session.forRepo();
      const got = await session.retrying(
        () => api.getPull({ owner, repo, pull_number: number }, signal),
        signal,
      );
      return { open: got.state === 'open', merged: got.merged, head: got.headSha };
    },
    async settleOwed(found, cancellation) {
      const { signal, done } = session.budget(FINISH_BUDGET_MS, cancellation);
      const thread = { owner, repo, number: found.number, pull: found.pull, fork: false };
      try {
        await settleOwed(session.pinnedTo({ thread, marker: found.marker }), found.note.job, signal);
      } catch (error) {
        session.warn(`Could not update the record of #${found.number}: ${describeThrown(error)}.`);
      } finally {
        done();
      }
    },
    async reportEnd(found, end, cancellation) {
      const { signal, done } = session.budget(FINISH_BUDGET_MS, cancellation);
      const thread = { owner, repo, number: found.number, pull: found.pull, fork: false };
      try {
        return await reportWaitingThread(
          session,
          { thread, marker: found.marker, note: found.note },
          end,
          signal,
        );
      } catch (error) {
        session.warn(`Could not report the end of the job of #${found.number}: ${describeThrown(error)}.`);
        return false;
      } finally {
        done();
      }
    },
  };
}
