// A lane run's send (a run of a thread's own, dispatched by a report run): what the thread is owed
// once its job's end is written, sent by playing the run that would have sent it. Only a run of the
// thread's lane comes here, so nothing of the thread sends between its read and its send.
import type { Accepted } from './accepted.js';
import type { ThreadNote } from './core/ports.js';
import type { DocsAsks, FoundWaiting, GitHubSteps } from './core/sweep-ports.js';
import type { Payload, RunEvent } from './core/event.js';
import { docsLedger, owes } from './core/ledger.js';
import { readQueue } from './decide/requests.js';
import { coreLog, describeThrown } from './core/log.js';
import { commentRequestEvent, pullHeadEvent, pullMergeEvent, quietEvent } from './core/request-event.js';
import { setupFor } from './decide/setup.js';
import type { JobRun } from './execute/job-run.js';
import { ActionFailure } from './service/errors.js';

/** What a lane run's send needs of the run: its setup, its step, and a way to carry a replayed pass. */
export interface OwedDeps {
  accepted: Accepted;
  step: JobRun;
  /**
   * Carries a lane run's replayed pass on its thread (decide, execute, report), told apart in the
   * log and summary by the thread's number: the quota uses it spent, and whether it was held.
   */
  carry: (theirs: Accepted, thread: number) => Promise<{ uses: number; held: boolean }>;
}

/**
 * A lane run's send: what its thread asked for while its job worked, now that the job's end is
 * written, sent by playing the run that would have sent it: the newest queued request's (who asked
 * is checked; the other requests go with it in one follow-up, each gets its 👀, and what changed
 * since the job last looked goes with them, a merge held meanwhile included), else the merge the
 * record owes, else, on a pull request, a push of its head (which `followUp`, or nothing new
 * since the job last looked, may hold: then nothing is written). The quota uses it spent;
 * `settled`: nothing of what was owed is left to try (sent, held, or gone), and no fault.
 */
export async function sendOwed(
  lane: { number: number; pull: boolean },
  thread: FoundWaiting | undefined,
  steps: GitHubSteps,
  deps: OwedDeps,
  onDocs?: DocsAsks,
): Promise<{ uses: number; settled: boolean }> {
  const { accepted, step } = deps;
  const { inputs, context } = accepted;
  const note = thread?.note;
  const queued = note && owes(note) ? (note.waiting?.queued ?? []) : [];
  // Under at-merge a merge is news whatever its head, so only the record says it is owed (its run
  // was held while the job worked): the merge's own run may have started the job, on that head.
  const owedMerge = note?.waiting?.merge === true;
  const asked = thread?.lastQueued;
  const many = `${queued.length} request${queued.length === 1 ? '' : 's'}`;
  const none = { uses: 0, settled: true };
  let replay: { event: RunEvent; payload: Payload; actor: string; sha?: string; quiet?: true } | undefined;
  if (queued.length > 0 && inputs.trigger === undefined) {
    step.fail(
      new ActionFailure(
        `#${lane.number} has ${many} queued while its job worked, which this step cannot read without its trigger input: give the thread's step its trigger. Nothing was sent; they stay owed.`,
      ),
    );
    return { uses: 0, settled: false };
  }
  let pull: { open: boolean; merged: boolean; head: string } | undefined;
  const readPull = async () =>
    (pull ??= await steps.sweep.pull(lane.number, step.signal).catch((error: unknown) => {
      step.fail(new ActionFailure(`Could not read pull request #${lane.number}: ${describeThrown(error)}.`));
      return undefined;
    }));
  if (queued.length > 0 && asked) {
    coreLog.info(`#${lane.number}: sending the ${many} queued while its job worked.`);
    replay = { ...commentRequestEvent(lane.number, lane.pull, asked), actor: asked.login };
  } else if (queued.length > 0 && !owedMerge && !onDocs) {
    // Deleted since it was asked: the others stay open in the request ledger, for the thread's next send.
    coreLog.warning(
      `#${lane.number}: the newest request queued while its job worked is gone; nothing was sent, and the thread's next run sends what else is queued.`,
    );
    return none;
  } else if (lane.pull && inputs.prompt !== undefined && note) {
    const now = await readPull();
    if (!now) return { uses: 0, settled: false };
    const moved = now.head !== note.head;
    const merge = now.merged && (owedMerge || (inputs.followUp === 'every-push' && moved));
    if (merge || (now.open && moved)) {
      coreLog.info(
        merge
          ? `#${lane.number}: its merge, held while the job worked, is sent as the merge's run would.`
          : `#${lane.number}: what its head holds since the job last looked is sent as its push's run would.`,
      );
      const played = merge ? pullMergeEvent(lane.number, now.head) : pullHeadEvent(lane.number, now.head);
      replay = { ...played, actor: context.actor, sha: now.head, quiet: true };
    }
  }
  // What was asked on the docs PR (read there once by the lane) goes with whatever this pass sends.
  if (!replay && onDocs) {
    // Only what was asked on the docs PR: an inert pass, which no followUp holds when something
    // there is owed, and every policy holds, writing nothing, when nothing is (a preview's
    // hand-off never sends a change for itself).
    coreLog.info(`#${lane.number}: reading what was asked on its docs pull request ${onDocs.key}.`);
    const now = lane.pull ? await readPull() : undefined;
    if (lane.pull && !now) return { uses: 0, settled: false };
    const played = quietEvent(lane.number, now?.head);
    replay = { ...played, actor: context.actor, ...(now ? { sha: now.head } : {}), quiet: true };
  }
  if (!replay) return none;
  const { event, payload, actor, sha, quiet } = replay;
  const setup = setupFor(
    { ...inputs, sweep: false },
    { ...context, event, payload, actor, sha: sha ?? context.sha },
  );
  const carried = await deps.carry(
    {
      ...setup,
      standIn: thread ? { marker: thread.marker } : {},
      ...(quiet ? { quiet } : {}),
      ...(onDocs ? { onDocs } : {}),
    },
    lane.number,
  );
  return { uses: carried.uses, settled: carried.held };
}

/**
 * Whether the docs PR holds a request the thread's record has not settled (from its note on), by
 * the step's trigger: what a lane run finding the job at work keeps owed.
 */
export function asksOpen(asks: DocsAsks, note: ThreadNote, inputs: Accepted['inputs']): boolean {
  if (inputs.trigger === undefined) return false;
  const queue = readQueue(undefined, asks.comments, {
    phrase: inputs.trigger,
    standing: Boolean(inputs.prompt),
    ledger: docsLedger(note, asks.key, asks.noteId),
    runId: 0,
  });
  return queue.kind === 'open' && queue.owed.length > 0;
}
