// Where the run's event stands in its thread's moment, read before a change is sent: a push that
// is a merge, a push to a branch with no pull request, and a change a newer push overtook (the
// pull request's head, or the branch's tip, moved past it).
import { pullRequestStep } from '../core/event-questions.js';
import type { Moment } from '../core/ports.js';
import type { GitHubSession } from './session.js';

/**
 * A branch's push overtaken by a newer one (a queued run, or a re-run of an older push): the
 * branch's tip, when it is neither this push's commit nor its `before`. One read; a fault is
 * none (the push goes on as it would have).
 */
async function newerTip(
  session: GitHubSession,
  own: string,
  signal: AbortSignal,
): Promise<{ newerHead?: string }> {
  const { event, repo } = session.run;
  if (event.kind !== 'push' || !event.ref?.startsWith('refs/heads/')) return {};
  const branch = event.ref.slice('refs/heads/'.length);
  const [tip] = await session
    .retrying(
      () =>
        session
          .forRepo()
          .listCommits({ owner: repo.owner, repo: repo.repo, sha: branch, per_page: 1 }, signal),
      signal,
    )
    .catch(() => []);
  const sha = tip && /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(tip) ? tip : undefined;
  return sha && sha !== own && sha !== event.before ? { newerHead: sha } : {};
}

export async function moment(session: GitHubSession, signal: AbortSignal): Promise<Moment> {
  const { run } = session;
  const { event } = run;
  if (event.kind === 'push') {
    const found = await session.retrying(() => session.runThread(signal), signal);
    const pushed = found.thread?.pushed;
    const own = event.after ?? run.sha;
    if (!found.thread) return { branch: true, ...(await newerTip(session, own, signal)) };
    if (pushed?.merge) return { merge: true };
    // GitHub moves a pull request's head a moment after the push: a head still at the push's
    // `before` is this push not yet seen, not a newer one.
    const newer = pushed?.head && pushed.head !== own && pushed.head !== event.before;
    return newer ? { newerHead: pushed.head } : {};
  }
  // Only a change to an open pull request can be overtaken: a closed one's head stays.
  if (event.kind === 'pull-request' && pullRequestStep(event) !== 'change') return {};
  if (event.kind !== 'pull-request' && event.kind !== 'workflow-run') return {};
  const found = await session.retrying(() => session.runThread(signal), signal);
  const { head } = await session.runCommits(signal);
  if (!found.thread || !head) return {};
  const { owner, repo, number } = found.thread;
  const pull = await session.retrying(
    () => session.readsOnce().getPull({ owner, repo, pull_number: number }, signal),
    signal,
  );
  return pull.headSha && pull.headSha !== head ? { newerHead: pull.headSha } : {};
}
