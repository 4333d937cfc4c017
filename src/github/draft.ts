// `draft: true`: the docs pull request a thread's job opened follows the code pull request's life
// — a draft while the code is open, ready for review once it merged (then `autoMerge` may apply),
// closed with a link when it closed unmerged, as a superseded docs PR is (only where no one but its
// opener committed to it). Only ever the docs PR, never the code pull request; each write is
// `docsToken`'s, and each refusal one warning that says what was not done.
import { pullPage, type PullRequestRef } from '../core/pull-request.js';
import type { GitHubApi } from './client.js';
import { describeGitHubFault } from './errors.js';
import type { GitHubSession } from './session.js';
import { keepsAThread, othersCommitted } from './supersede.js';
import type { Thread } from './target.js';

/** How the code pull request stands: the docs PR follows it. */
export type CodeState = 'open' | 'merged' | 'closed';

/** The code pull request `thread` as GitHub has it now; `undefined` (a warning) when it cannot say. */
export async function codeState(
  session: GitHubSession,
  thread: Thread,
  signal: AbortSignal,
): Promise<CodeState | undefined> {
  const { owner, repo, number } = thread;
  try {
    const pull = await session.retrying(
      () => session.forRepo().getPull({ owner, repo, pull_number: number }, signal),
      signal,
    );
    return pull.merged ? 'merged' : pull.state === 'open' ? 'open' : 'closed';
  } catch (error) {
    if (signal.aborted) throw error;
    session.warn(
      `${describeGitHubFault(error, {
        what: `read pull request #${number}`,
        token: 'githubToken',
        permission: 'pull-requests: read',
        repo: `${owner}/${repo}`,
      })} Its docs pull request's draft is left as it is.`,
    );
    return undefined;
  }
}

/**
 * The docs PR `pr` made to follow the code pull request `code` (#`number`) is in: whether it is
 * ready for review now (so `autoMerge` may apply). A docs PR no longer open is left alone.
 */
export async function followCode(
  session: GitHubSession,
  api: GitHubApi,
  pr: PullRequestRef,
  code: { state: CodeState; number: number },
  signal: AbortSignal,
): Promise<boolean> {
  const where = `${pr.owner}/${pr.repo}#${pr.number}`;
  const at = { owner: pr.owner, repo: pr.repo, pull_number: pr.number };
  let step = `read ${where}`;
  try {
    const pull = await session.retrying(() => api.getPull(at, signal), signal);
    if (pull.state !== 'open') return false;
    // Nothing to write: already as the code pull request stands.
    if (code.state === 'open' && pull.draft) return false;
    if (code.state === 'merged' && !pull.draft) return true;
    // A pull request this action keeps a thread on is someone's change, whatever the service named.
    step = `read the comments of ${where}`;
    if (await session.retrying(() => keepsAThread(api, at, signal), signal)) {
      session.warn(
        `${where} is a pull request this action keeps a docs thread on, not a docs pull request; it is left as it is (draft: true).`,
      );
      return false;
    }
    if (code.state === 'open') {
      step = `make ${where} a draft`;
      await api.setDraft({ pullRequestId: pull.nodeId, draft: true }, signal);
      session.say(`Made ${where} a draft: it waits for #${code.number} to merge.`);
      return false;
    }
    if (code.state === 'merged') {
      step = `mark ${where} ready for review`;
      await api.setDraft({ pullRequestId: pull.nodeId, draft: false }, signal);
      session.say(`Marked ${where} ready for review: #${code.number} merged.`);
      return true;
    }
    // Closed unmerged: the docs for a change that will not land go, as a superseded docs PR does.
    step = `list the commits of ${where}`;
    const others = await session.retrying(() => othersCommitted(api, at, pull.opener, signal), signal);
    if (!others) {
      step = `close ${where}`;
      await api.closePull(at, signal);
    }
    step = `comment on ${where}`;
    await api.createComment(
      { ...at, issue_number: pr.number, body: closedBody(session, code.number, others) },
      signal,
    );
    session.say(
      others
        ? `${where} stays open: someone other than its opener committed to it (#${code.number} closed unmerged).`
        : `Closed ${where}: #${code.number} closed unmerged.`,
    );
    return false;
  } catch (error) {
    if (signal.aborted) throw error;
    session.warn(
      `${describeGitHubFault(error, {
        what: step,
        token: 'docsToken',
        permission: 'pull-requests: write',
        repo: `${pr.owner}/${pr.repo}`,
      })} The docs pull request does not follow #${code.number}: draft: true needs docsToken with pull-requests: write on ${pr.owner}/${pr.repo}.`,
    );
    return false;
  }
}

/** The word on the docs PR when its code pull request closed unmerged. */
function closedBody(session: GitHubSession, number: number, kept: boolean): string {
  const { owner, repo } = session.run.repo;
  const code = pullPage(session.run.serverUrl, { owner, repo, number });
  const link = `<a href="${code}">${owner}/${repo}#${number}</a>`;
  return [
    `📄 ${link}, the pull request these docs were written for, was closed without merging, so ${
      kept
        ? 'these docs will not go live with it. It stays open: someone other than its opener committed to it; close it once what it holds is carried over or no longer needed.'
        : 'this docs pull request is closed with it.'
    }`,
    '',
    `<sub><a href="${session.runUrl}">workflow run</a></sub>`,
    '',
  ].join('\n');
}
