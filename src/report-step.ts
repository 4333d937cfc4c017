// The third step, report: the outputs (on every path, `mode` and `status` included), the summary,
// the step's error, then the GitHub side, last, so that a signal while it works cannot cost the
// outputs, the summary or the error. A run that sent nothing ends here too (its notice, and on a
// thread the success status decide chose, which only the report writes), and a dry run (its
// decision and prompt, nothing written).
import type { Skip } from './decide/admission.js';
import type { Decision } from './decide/decide.js';
import type { Executed } from './execute/execute.js';
import type { JobRun } from './execute/job-run.js';
import { threadUses } from './core/ledger.js';
import { coreLog, describeThrown, failStep } from './core/log.js';
import { modeOutput } from './core/mode.js';
import type { Memory } from './core/ports.js';
import { label, previewUrl } from './core/untrusted.js';
import type { Accepted, LazyGitHub } from './accepted.js';
import { setCommentUrl, setJobOutputs, setOutput } from './report/outputs.js';
import { writeDryRunSummary, writeSummary } from './report/summary.js';

/** What the steps handed on, as far as the run got: the report writes the outputs from it. */
export interface Ended {
  accepted?: Accepted;
  decision?: Decision;
  executed?: Executed;
}

/**
 * GitHub's faults are warnings: they never change the step's result. `alongside`: the run tells
 * another merged pull request's thread too (a push of several merges), whose end is said in the
 * log, the summary and on its thread, never in the outputs, which are the pushed commit's.
 */
export async function report(
  step: JobRun,
  { accepted, decision, executed }: Ended,
  github: LazyGitHub | undefined,
  cancellation: AbortSignal,
  alongside?: { thread: number; quiet?: boolean },
): Promise<void> {
  const outputs = alongside === undefined;
  if (accepted?.features.dryRun && decision) {
    await endDryRun(decision, outputs);
    return;
  }
  if (decision?.kind === 'skip') {
    if (alongside?.quiet)
      coreLog.info(`${alongside.thread ? `#${alongside.thread}` : 'The default branch'}: ${decision.notice}`);
    else await endSkipped(decision, github, cancellation, outputs);
    return;
  }
  const serverUrl = accepted?.context.serverUrl ?? 'https://github.com';
  if (outputs) setOutputs(step, { accepted, decision, executed }, serverUrl);
  step.stopClock();
  const memory: Memory = decision?.kind === 'go' ? decision.memory : {};
  if (step.job) {
    const { context, features } = accepted ?? {};
    const spent =
      context && features?.thread
        ? threadUses(memory.note, { run: context.runId, attempt: context.runAttempt, uses: step.uses })
        : undefined;
    const mode = step.mode ? modeOutput(step.mode) : undefined;
    const facts = {
      job: step.job,
      waitedMs: step.waitedMs,
      ...(mode ? { mode } : {}),
      ...(mode === 'given' && accepted?.inputs.wait === false ? { onlyRead: true } : {}),
      failure: step.failure,
      serverUrl,
      ...(alongside ? { thread: alongside.thread } : {}),
    };
    await writeSummary({ ...facts, ...(spent !== undefined ? { threadUses: spent } : {}) }).catch(
      (error: unknown) => coreLog.warning(`Could not write the step summary: ${describeThrown(error)}.`),
    );
  }
  if (step.failure) failStep(step.failure);

  // A dry run writes nothing on GitHub, whatever stopped it.
  const steps = accepted?.features.dryRun ? undefined : await github?.asked;
  if (!steps) return;
  const outcome = step.outcome(memory);
  const commentUrl = await steps.report.finish(outcome, executed?.github, cancellation);
  try {
    if (commentUrl && outputs) setCommentUrl(commentUrl, (m) => coreLog.warning(m));
    // The thread's docs PR's preview, as its record holds it (read back: checked again).
    const preview = memory.note?.job === outcome.jobId ? previewUrl(memory.note?.preview) : undefined;
    if (preview && outputs) setOutput('previewUrl', preview);
  } catch (error) {
    // A step that failed already keeps its first error.
    if (!outcome.failure) failStep(step.fail(error));
  }
}

/** The outputs, on every path that got as far as valid inputs; a fault writing them fails the step. */
function setOutputs(step: JobRun, { accepted, decision, executed }: Ended, serverUrl: string): void {
  try {
    if (step.id)
      setJobOutputs(step.id, step.job, (message) => coreLog.warning(message), executed?.jobId, serverUrl);
    // A run that ended before the service confirmed a job still says which way it went (once
    // that was decided) and that no job started: a bad input alone sets nothing. A `jobId` the
    // service never showed (unknown to it, or every read failed) is no job seen either.
    if (decision?.kind === 'go' && executed?.jobId === undefined)
      setOutput('mode', modeOutput(step.mode ?? decision.mode));
    // A dry run reports `dry-run` whatever stopped it: it was never going to start a job.
    if (accepted && !step.job) setOutput('status', accepted.features.dryRun ? 'dry-run' : 'not-started');
    if (accepted) setOutput('uses', String(step.uses));
  } catch (error) {
    step.fail(error);
  }
}

/**
 * A step that does nothing ends here: one notice, `status` and `mode` `skipped`; on a thread held
 * back, the success status decide chose; on a bare `/docs` or at the budget a word on the thread.
 * No summary, no error, no comment about a job.
 */
async function endSkipped(
  { notice, answer, held, owe, handOff, docsDraft }: Skip,
  github: LazyGitHub | undefined,
  cancellation: AbortSignal,
  outputs: boolean,
): Promise<void> {
  coreLog.notice(notice);
  try {
    if (outputs) {
      setOutput('status', 'skipped');
      setOutput('mode', 'skipped');
      setOutput('uses', '0');
      // The thread's docs PR's preview, as its record holds it, on a run that sent nothing too.
      const preview = previewUrl(held?.memory.note?.preview);
      if (preview) setOutput('previewUrl', preview);
    }
  } catch (error) {
    failStep(describeThrown(error));
    return;
  }
  const steps = answer || held || handOff ? await github?.asked : undefined;
  if (held) await steps?.report.skipped(held.status, held.job, cancellation, held.memory);
  if (docsDraft) await steps?.report.followCode(docsDraft, cancellation);
  // A request on a docs PR answered only when its thread's lane cannot take it.
  const said =
    handOff && steps && !(await steps.report.handDocsAsk(handOff.thread, cancellation))
      ? handOff.answer
      : answer;
  if (!steps || !said) return;
  const url = await steps.report.answer(said, cancellation, owe).catch((error: unknown) => {
    coreLog.warning(`Could not answer on the thread: ${describeThrown(error)}.`);
    return undefined;
  });
  if (url && outputs) setCommentUrl(url, (m) => coreLog.warning(m));
}

/**
 * A dry run ends here once decided: `mode` the way it would have gone, `status` `dry-run`, no use
 * spent, and the summary with the decision and the exact prompt. Nothing was sent or written.
 */
async function endDryRun(decision: Decision, outputs: boolean): Promise<void> {
  const mode = decision.kind === 'go' ? modeOutput(decision.mode) : 'skipped';
  const jobId = decision.kind === 'go' && decision.mode.kind !== 'create' ? decision.mode.jobId : undefined;
  if (decision.kind === 'skip') coreLog.notice(decision.notice);
  coreLog.notice(
    `Dry run: nothing was sent or written; the run would have ${mode === 'skipped' ? 'been skipped' : `gone as ${mode}${jobId ? ` (job ${label(jobId)})` : ''}`}. The step summary shows the decision${decision.kind === 'go' && decision.prompt !== undefined ? ' and the prompt' : ''}.`,
  );
  try {
    if (outputs) {
      setOutput('mode', mode);
      setOutput('status', 'dry-run');
      setOutput('uses', '0');
    }
  } catch (error) {
    failStep(describeThrown(error));
    return;
  }
  await writeDryRunSummary({
    mode,
    ...(jobId ? { jobId } : {}),
    ...(decision.kind === 'skip' ? { skipped: decision.notice } : {}),
    ...(decision.kind === 'go' && decision.prompt !== undefined ? { prompt: decision.prompt } : {}),
  }).catch((error: unknown) =>
    coreLog.warning(`Could not write the step summary: ${describeThrown(error)}.`),
  );
}
