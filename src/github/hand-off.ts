// A report run runs beside a thread's lane (the runs GitHub serializes in the thread's concurrency
// group), never in it, so it sends nothing to a thread's job, and writes nothing on a thread its
// lane is about to send on: what the thread is owed, with the job's end, goes to the lane, as a
// `workflow_dispatch` of the same workflow that names the thread. The recipe's group puts that run
// in the thread's lane, and GitHub's queue keeps it from running beside any other run of the thread.
import { DOCS_ASK_INPUT, LANE_INPUT } from '../core/dispatch-inputs.js';
import { describeGitHubFault } from './errors.js';
import type { GitHubSession } from './session.js';

/**
 * The workflow's file and the branch to dispatch it on, from `GITHUB_WORKFLOW_REF`: a branch's
 * ref as it is (unless `onDefault`), anything else (a pull request's merge ref, a tag) the default branch, where
 * `workflow_dispatch` reads its workflows. `undefined` when the run cannot tell.
 */
export function dispatchTarget(
  workflowRef: string,
  defaultBranch: string | undefined,
  onDefault = false,
): { workflow: string; ref: string } | undefined {
  const match = /\/\.github\/workflows\/([^/@]+\.ya?ml)@(.+)$/.exec(workflowRef);
  if (!match?.[1] || !match[2]) return undefined;
  const ref = match[2].startsWith('refs/heads/') && !onDefault ? match[2] : defaultBranch;
  return ref ? { workflow: match[1], ref } : undefined;
}

/**
 * Starts thread `number`'s lane run; `false`, with a warning that says what to give, when GitHub
 * refused or the run cannot tell its workflow (the report run then writes the end itself). What is
 * owed stays in the thread's record either way.
 */
export async function handOff(
  session: GitHubSession,
  number: number,
  signal: AbortSignal,
  docsAsk?: string,
): Promise<boolean> {
  const { repo, workflowRef, event } = session.run;
  // A deployment's run is on the deployed branch (a docs PR's): the lane runs the default
  // branch's workflow, as every other hand-off does.
  const target = dispatchTarget(workflowRef, event.repository?.defaultBranch, event.kind === 'deployment');
  if (!target) {
    session.warn(
      `Could not hand #${number} to its thread's own run: this run cannot tell its workflow's file and branch (GITHUB_WORKFLOW_REF). An end this run found, it writes itself; what the thread is owed, its next run sends.`,
    );
    return false;
  }
  try {
    await session.forRepo().dispatchWorkflow(
      {
        ...repo,
        workflow_id: target.workflow,
        ref: target.ref,
        inputs: { [LANE_INPUT]: String(number), ...(docsAsk ? { [DOCS_ASK_INPUT]: docsAsk } : {}) },
      },
      signal,
    );
    session.say(
      `Started a run of ${target.workflow} on ${target.ref} for #${number}'s thread (${LANE_INPUT}: ${number}${docsAsk ? `, ${DOCS_ASK_INPUT}: ${docsAsk}` : ''}).`,
    );
    return true;
  } catch (error) {
    session.warn(
      `${describeGitHubFault(error, {
        what: `start a run of ${target.workflow} for #${number}'s thread`,
        token: 'githubToken',
        permission: `actions: write, and a workflow_dispatch trigger with the input ${LANE_INPUT}${docsAsk ? ` and ${DOCS_ASK_INPUT}` : ''}`,
        repo: `${repo.owner}/${repo.repo}`,
      })} An end this run found, it writes itself; what the thread is owed, its next run sends.`,
    );
    return false;
  }
}
