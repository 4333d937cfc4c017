// A run on a thread's docs pull request that belongs to no thread's lane: a dispatch the docs
// repository forwards for a `/docs` there, or a docs host's `deployment_status` (its preview). It
// sends nothing and writes nothing on the thread: it finds the thread the docs PR's note names and
// hands the docs PR to that thread's lane, whose run reads what was asked there and links the
// preview. A docs PR no note names (the docs service's own, another tool's) starts nothing.
import type { Accepted } from './accepted.js';
import type { GitHubSteps } from './core/sweep-ports.js';
import { coreLog, describeThrown } from './core/log.js';
import { label, previewUrl } from './core/untrusted.js';
import type { JobRun } from './execute/job-run.js';
import { ActionFailure } from './service/errors.js';

/** What handing on needs of the run: its setup and its step. */
export interface HandOnDeps {
  accepted: Accepted;
  step: JobRun;
}

/** The run's hand-off: the thread it handed the docs PR to, if it did. */
export async function handOn(steps: GitHubSteps, deps: HandOnDeps): Promise<number | undefined> {
  const { docsAsk } = deps.accepted.features;
  return docsAsk !== undefined ? forwardDocsAsk(docsAsk, steps, deps) : forwardDeployment(steps, deps);
}

/**
 * A `deployment_status` (a docs host's preview of a pull request of this repository): where it
 * succeeded with an https URL, the pull request whose head it deployed is handed on as a `/docs`
 * there would be, so its thread's lane links the preview; nothing is sent.
 */
async function forwardDeployment(steps: GitHubSteps, deps: HandOnDeps): Promise<number | undefined> {
  const { event } = deps.accepted.context;
  if (event.kind !== 'deployment') return undefined;
  const { state, sha, environmentUrl } = event;
  if (state !== 'success' || !sha || !/^[0-9a-f]{40}$/.test(sha) || !previewUrl(environmentUrl)) {
    coreLog.notice(
      `Nothing to link: the deployment ${state === 'success' ? 'names no https URL' : `is ${label(state ?? 'of no state')}`}.`,
    );
    return undefined;
  }
  const link = await steps.sweep.pullOfCommit(sha, deps.step.signal).catch((error: unknown) => {
    throw new ActionFailure(
      `Could not find the pull request deployed at ${sha.slice(0, 12)}: ${describeThrown(error)}`,
    );
  });
  if (!link) {
    coreLog.notice(
      `Nothing to link: no pull request of this repository has ${sha.slice(0, 12)} as its head.`,
    );
    return undefined;
  }
  return forwardDocsAsk(link, steps, deps);
}

/**
 * A dispatch naming a docs pull request where `/docs` was asked (the docs repository's workflow
 * forwards it): the thread its note names gets the request through its lane. Nothing is sent here,
 * and a docs PR that names no thread of this repository (the docs service's own, another tool's)
 * starts nothing.
 */
async function forwardDocsAsk(
  link: string,
  steps: GitHubSteps,
  deps: HandOnDeps,
): Promise<number | undefined> {
  const { signal } = deps.step;
  const number = await steps.sweep.docsThread(link, signal).catch((error: unknown) => {
    throw new ActionFailure(`Could not read the docs pull request ${link}: ${describeThrown(error)}`);
  });
  if (number === undefined) {
    coreLog.notice(`Nothing was handed on: ${link} is no docs pull request of a thread of this repository.`);
    return undefined;
  }
  if (deps.accepted.features.dryRun) {
    coreLog.notice(`Dry run: what was asked on ${link} is not handed to #${number}'s thread.`);
    return undefined;
  }
  return (await steps.sweep.handOff(number, signal, link)) ? number : undefined;
}
