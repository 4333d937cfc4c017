import * as core from '@actions/core';
import { Cancelled, listenForCancellation } from './cancel.js';
import { AgentClient, REQUEST_TIMEOUT_MS, ServiceError } from './client.js';
import { systemClock, type Clock } from './clock.js';
import { connect, proxyPasswords, type Connection } from './dispatcher.js';
import { formatDuration } from './duration.js';
import { ActionFailure, explain, type FaultContext } from './errors.js';
import type { GitHubReport } from './github/index.js';
import { readInputs, wantsGitHub, type Inputs } from './inputs.js';
import type { AgentJob } from './job.js';
import { describeThrown, label, printableUrl, type Log } from './log.js';
import { maskSecret, MIN_SECRET, redact } from './secrets.js';
import { startJob } from './start.js';
import { writeSummary } from './summary.js';
import { VERSION } from './version.js';
import { waitForJob, type ReadJob } from './wait.js';

const log: Log = {
  info: (message) => core.info(message),
  warning: (message) => core.warning(message),
  debug: (message) => core.debug(message),
};

/** What is known of the job so far: its id as soon as there is one, the last job object read. */
interface Known {
  id?: string;
  job?: AgentJob;
  timedOut?: boolean;
  /** Set once the create or follow-up may have left: before that, a failure sent nothing. */
  sending?: boolean;
  /** The GitHub side, loading or loaded, when the workflow asked for it. */
  github?: Promise<GitHubReport | undefined>;
}

/**
 * The action: inputs → create, follow up or look up → wait → outputs and summary. Every failure,
 * whatever was thrown, ends in one `core.setFailed` line; outputs and the summary are written on
 * every path that knows a job, cancellation included.
 */
export async function run(clock: Clock = systemClock): Promise<void> {
  const startedAt = clock.now();
  // Before anything is printed: the key, both GitHub tokens (on every run: the runner does not
  // show add-mask lines, and a refused input must not leave them unmasked), and a proxy's
  // password, which error text from the HTTP stack may carry.
  maskSecret(core.getInput('apiKey'));
  maskSecret(core.getInput('githubToken'));
  maskSecret(core.getInput('docsToken'));
  for (const password of proxyPasswords(process.env)) if (password.length >= MIN_SECRET) maskSecret(password);
  const cancellation = listenForCancellation();
  const known: Known = {};
  let inputs: Inputs | undefined;
  let connection: Connection | undefined;
  let failure: string | undefined;
  try {
    inputs = readInputs((name) => core.getInput(name));
    failure = await work(inputs, clock, startedAt, cancellation.signal, known, (c) => (connection = c));
  } catch (error) {
    failure = describeFailure(error, inputs, known);
    // Positions are in dist/index.js; dist/index.js.map maps them to src/. (Registering
    // source-map support at start-up would cost every run time, see npm run bench.)
    if (core.isDebug() && error instanceof Error && error.stack) core.debug(redact(error.stack));
  } finally {
    // Sockets kept alive would hold the process open after the work is done.
    await connection?.dispatcher.destroy().catch(() => undefined);
  }

  try {
    if (known.id) setOutputs(known.id, known.job);
  } catch (error) {
    failure ??= describeFailure(error, inputs, known);
  }
  const waitedMs = clock.now() - startedAt;
  if (known.job) {
    await writeSummary({ job: known.job, waitedMs, failure }).catch((error: unknown) =>
      core.warning(`Could not write the step summary: ${describeThrown(error)}.`),
    );
  }
  if (failure) core.setFailed(failure);

  // The GitHub side comes last, so that a signal while it works cannot cost the outputs, the
  // summary or the step's error. Its faults are warnings: they never change the step's result.
  const github = await known.github;
  if (known.id && github) {
    const { timedOut = false } = known;
    const outcome = { jobId: known.id, job: known.job, failure, timedOut, waitedMs };
    const commentUrl = await github.finish(outcome, cancellation.signal);
    try {
      if (commentUrl) output('commentUrl', commentUrl);
    } catch (error) {
      if (!failure) core.setFailed(describeFailure(error, inputs, known));
    }
  }
  // Only now: a signal while the outputs and summary are written must not kill the process
  // halfway through them (the handler is harmless once the work is done).
  cancellation.dispose();
}

/** The work between valid inputs and the verdict; returns the step's error, if any. */
async function work(
  inputs: Inputs,
  clock: Clock,
  startedAt: number,
  signal: AbortSignal,
  known: Known,
  opened: (connection: Connection) => void,
): Promise<string | undefined> {
  const connection = connect(inputs.baseUrl);
  opened(connection);
  if (connection.proxy) core.info(`Using the proxy ${connection.proxy}.`);
  const client = new AgentClient({
    baseUrl: inputs.baseUrl,
    projectId: inputs.projectId,
    apiKey: inputs.apiKey,
    dispatcher: connection.dispatcher,
    userAgent: userAgent(),
    now: () => clock.now(),
  });
  const deadline = startedAt + inputs.timeoutMs;
  const context: FaultContext = {
    operation: 'create',
    baseUrl: inputs.baseUrl,
    projectId: inputs.projectId,
    proxy: connection.proxy,
  };

  // Loaded while the job is being created, so the GitHub side adds no wait of its own (unless
  // the prompt needs the event's context first).
  if (wantsGitHub(inputs)) known.github = loadGitHubReport(inputs);
  if (inputs.promptFile) {
    core.info(
      `The prompt is read from ${label(inputs.promptFile)} (${inputs.prompt?.length ?? 0} characters).`,
    );
  }
  let prompt = inputs.prompt;
  if (prompt !== undefined && inputs.context === 'auto') {
    const section = await (await known.github)?.contextFor(inputs.contextLimit, signal);
    if (section) prompt = `${prompt}\n\n${section}`;
  }
  known.id = inputs.jobId;
  known.sending = true;
  const started = await startJob(
    client,
    { prompt, jobId: inputs.jobId },
    { clock, deadline, log, context, signal },
  );
  known.id = started.id;
  known.job = started.job;
  output('jobId', started.id);
  // Without waiting, the comment is written once, at the end.
  if (inputs.wait) (await known.github)?.started(started.id, started.job);

  const read: ReadJob = (call) => client.getJob(started.id, call);
  const getContext: FaultContext = { ...context, operation: 'get', jobId: started.id };
  if (!inputs.wait) {
    // Without a prompt there is nothing created to report: read the job once.
    known.job ??= await read({ timeoutMs: REQUEST_TIMEOUT_MS, signal }).catch((error: unknown) => {
      // A single read has no second chance: every fault is final.
      throw error instanceof ServiceError ? new ActionFailure(explain(error.fault, getContext)) : error;
    });
    return verdict(known.job, inputs);
  }

  const result = await waitForJob(read, started.id, started.job, {
    clock,
    deadline,
    pollIntervalMs: inputs.pollIntervalMs,
    createdAt: started.createdAt,
    settledAfter: started.settledAfter,
    log,
    context: getContext,
    signal,
    onJob: (latest) => (known.job = latest),
  });
  known.job = result.job;
  known.timedOut = result.timedOut;
  if (result.timedOut || !result.job) {
    const last = result.job ? `last status: ${label(result.job.status)}` : 'it could not be read';
    return `Agent job ${label(started.id)} did not finish within ${formatDuration(inputs.timeoutMs)} (${last}); it goes on in the service. Raise the timeout input to wait longer.`;
  }
  return verdict(result.job, inputs);
}

/** The step's error for a job, or `undefined` for success. */
function verdict(job: AgentJob, inputs: Inputs): string | undefined {
  switch (job.status) {
    case 'completed':
      core.info(
        job.prLink
          ? `Agent job ${label(job.id)} completed: ${printableUrl(job.prLink)}`
          : `Agent job ${label(job.id)} completed without a pull request (no files changed).`,
      );
      return undefined;
    case 'failed':
      return `Agent job ${label(job.id)} failed.`;
    case 'archived':
      return `Agent job ${label(job.id)} was archived before it completed.`;
    default:
      // Only reachable with `wait: false`: the job goes on without this step.
      if (!inputs.wait) core.info(`Agent job ${label(job.id)} goes on in the service (wait is false).`);
      return undefined;
  }
}

function describeFailure(error: unknown, inputs: Inputs | undefined, known: Known): string {
  if (error instanceof Cancelled) {
    const cancelled = `The step was cancelled (${error.signalName})`;
    if (!known.sending) return `${cancelled} before anything was sent to the service.`;
    if (known.id && (known.job || !inputs?.prompt)) {
      const last = known.job ? ` (last status: ${label(known.job.status)})` : '';
      return `${cancelled} while waiting; agent job ${label(known.id)} goes on in the service${last}.`;
    }
    if (inputs?.jobId) {
      return `${cancelled} before the service confirmed the follow-up message; agent job ${label(inputs.jobId)} may have taken it.`;
    }
    return `${cancelled} before the service confirmed the job; a job may have been created in project ${label(inputs?.projectId ?? '')}: look for it before you re-run.`;
  }
  if (error instanceof ActionFailure) return error.message;
  return `The action failed unexpectedly: ${describeThrown(error)}. Re-run the job with debug logging enabled for details.`;
}

function setOutputs(id: string, job: AgentJob | undefined): void {
  output('jobId', id);
  if (!job) return;
  output('status', job.status);
  output('prLink', job.prLink ?? '');
  output('job', JSON.stringify(job));
}

/**
 * The GitHub side, in its own chunk of dist/: a run that asks for none of it never loads
 * Octokit. A chunk that cannot load is a warning, like any other GitHub fault.
 */
async function loadGitHubReport(inputs: Inputs): Promise<GitHubReport | undefined> {
  try {
    const { startGitHubReport } = await import('./github/index.js');
    return startGitHubReport({ ...inputs, userAgent: userAgent() });
  } catch (error) {
    core.warning(
      `Could not load the GitHub side of the action: ${describeThrown(error)}. The job goes on without it.`,
    );
    return undefined;
  }
}

function output(name: string, value: string): void {
  try {
    // Job fields were redacted where they came in; this also covers what came from GitHub.
    core.setOutput(name, redact(value));
  } catch (error) {
    // E.g. GITHUB_OUTPUT names a file that cannot be written: the step must still fail in words.
    throw new ActionFailure(`Could not set the step's outputs: ${describeThrown(error)}.`);
  }
}

/**
 * Lets the service's operators see which workflow run made a request. Read from the runner's
 * variables directly: `@actions/github`'s `context` would give the same three values, but would
 * bring Octokit into the bundle (180 kB, about 12 ms of start-up on every run).
 */
function userAgent(): string {
  const {
    GITHUB_SERVER_URL: server = 'https://github.com',
    GITHUB_REPOSITORY: repo,
    GITHUB_RUN_ID: runId,
  } = process.env;
  const run = repo && runId ? ` (+${server}/${repo}/actions/runs/${runId})` : '';
  return `agent-job-action/${VERSION}${run}`;
}
