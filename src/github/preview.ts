// The docs PR's preview: the docs host deploys each docs pull request's head and names the URL in
// a deployment status on it. A run of the thread's lane (handed the docs PR by a run on its
// `deployment_status`, or by a `/docs` there) reads it and links it in the thread's kept comment,
// whose record it keeps (`preview`, the `previewUrl` output); nothing is sent. Only an https URL
// is ever shown, and nothing else of the deployment.
import { previewUrl } from '../core/untrusted.js';
import type { ThreadNote } from '../core/ports.js';
import { withPreview } from './comment.js';
import { describeGitHubFault } from './errors.js';
import { readNote, withNote } from './note.js';
import type { GitHubSession } from './session.js';
import type { Thread } from './target.js';
import { keptForWriting } from './writes.js';

/** How many of the head's newest deployments are looked at: a redeploy, a second environment. */
const DEPLOYMENTS_READ = 3;

/**
 * The preview of the docs pull request `link` at its head: the URL the newest of its deployments
 * whose newest status is a success names, when it is https; `undefined` otherwise, or (with a
 * warning) when GitHub cannot say.
 */
export async function readPreview(
  session: GitHubSession,
  link: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  const reach = session.docsReach(link);
  if ('none' in reach) return undefined;
  const { pr, api } = reach;
  const at = { owner: pr.owner, repo: pr.repo };
  try {
    const pull = await session.retrying(() => api.getPull({ ...at, pull_number: pr.number }, signal), signal);
    const deployments = await session.retrying(
      () => api.deployments({ ...at, sha: pull.headSha, per_page: DEPLOYMENTS_READ }, signal),
      signal,
    );
    for (const { id } of deployments.slice(0, DEPLOYMENTS_READ)) {
      const status = await session.retrying(
        () => api.deploymentStatus({ ...at, deployment_id: id }, signal),
        signal,
      );
      if (status?.state !== 'success') continue;
      const url = previewUrl(status.environmentUrl);
      if (url) return url;
    }
    return undefined;
  } catch (error) {
    if (signal.aborted) throw error;
    session.warn(
      `${describeGitHubFault(error, {
        what: `read the deployments of the docs pull request ${pr.owner}/${pr.repo}#${pr.number}`,
        token: 'docsToken',
        permission: 'deployments: read',
        repo: `${pr.owner}/${pr.repo}`,
      })} Its preview is not linked.`,
    );
    return undefined;
  }
}

/**
 * A lane run's link to the preview of its thread's docs PR (`docs`: its page, and the job its note
 * names, which must be the thread's job now) in the thread's kept comment
 * (read afresh, written only when it changed; a thread with no comment yet gets none): the
 * preview the thread's record now holds. Only the thread's lane writes it, so nothing of the
 * thread writes between this read and this write.
 */
export async function linkPreview(
  session: GitHubSession,
  pinned: { thread: Thread; marker: string },
  docs: { link: string; job: string },
  signal: AbortSignal,
): Promise<string | undefined> {
  const { link } = docs;
  const url = await readPreview(session, link, signal);
  const thread = session.pinnedTo(pinned);
  const { comment } = await keptForWriting(thread, signal);
  const body = comment ? await comment.bodyNow(signal) : undefined;
  const now: ThreadNote | undefined = body ? thread.trusted(readNote(body), 'the kept comment') : undefined;
  // Only the docs PR of the thread's job now: an earlier job's (left open) names the thread too.
  if (!comment || !now || !url || now.job !== docs.job) return now?.preview;
  if (now.preview === url) return url;
  const note = { ...now, preview: url };
  await comment.write((previous) => withPreview(withNote(previous ?? '', note), url), signal);
  session.say(`Linked the preview of ${link} on #${pinned.thread.number}: ${url}`);
  return url;
}
