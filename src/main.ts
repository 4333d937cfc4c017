import * as core from '@actions/core';
import { listenForCancellation } from './cancel.js';
import { AgentClient } from './client.js';
import { systemClock, type Clock } from './clock.js';
import { connect, proxyPasswords, type Connection } from './dispatcher.js';
import type { FaultContext } from './errors.js';
import type { GitHubReport } from './github/index.js';
import { admit } from './admission.js';
import { readEvent, type RunnerEvent } from './event.js';
import { mayBeOpen } from './gate.js';
import { givenToken, readInputs, REQUEST_EVENTS, wantsGitHub, type Inputs } from './inputs.js';
import { planJob } from './continuity.js';
import { modeOutput, onlyWaits } from './mode.js';
import { readRequest, type RequestComment } from './trigger.js';
import { isTerminal, type AgentJob } from './job.js';
import { JobRun } from './job-run.js';
import { describeThrown, type Log } from './log.js';
import { escapeUnsafe, label, printableUrl } from './untrusted.js';
import { setCommentUrl, setJobOutputs, setOutput } from './outputs.js';
import { maskSecret, MIN_SECRET, redact, redactAlso, RUNNER_TOKENS } from './secrets.js';
import { startJob } from './start.js';
import { writeSummary } from './summary.js';
import { readJobOnce, waitForJob, type ReadJob } from './wait.js';

const log: Log = {
  info: (message) => core.info(message),
  notice: (message) => core.notice(message),
  warning: (message) => core.warning(message),
  debug: (message) => core.debug(message),
};

/** The GitHub side's chunk of dist/, loaded only when asked for; tests give their own. */
export type LoadGitHub = () => Promise<Pick<typeof import('./github/index.js'), 'startGitHubReport'>>;
const loadGitHubChunk: LoadGitHub = () => import('./github/index.js');

/** What only `run()` holds while the work goes on, and releases at the end. */
interface Resources {
  /** Kept-alive sockets would hold the process open after the work is done: closed at the end. */
  connection?: Connection;
  /** The GitHub side, loading or loaded, when the workflow asked for it. */
  github?: Promise<GitHubReport | undefined>;
  /** What a skipped step says on the thread instead of a job. */
  answer?: string;
  /** The `jobId` output, once written (as soon as the id is known). */
  jobIdOutput?: string;
  /** A `/docs` request started the run: it is answered on its thread, job or no job. */
  asked?: boolean;
}

/**
 * The action: inputs → create, follow up or look up → wait → outputs and summary. Every failure,
 * whatever was thrown, ends in one `core.setFailed` line; outputs and the summary are written on
 * every path that knows a job, cancellation included.
 */
export async function run(clock: Clock = systemClock, loadGitHub = loadGitHubChunk): Promise<void> {
  const startedAt = clock.now();
  maskRunSecrets();
  const cancellation = listenForCancellation();
  const step = new JobRun(clock, cancellation.signal, startedAt);
  const held: Resources = {};
  try {
    const given = readInputs((name) => core.getInput(name));
    // The payload is read only where a decision needs it: a /docs request, an event anyone can cause.
    const eventName = process.env.GITHUB_EVENT_NAME ?? '';
    const event: RunnerEvent =
      (given.trigger && REQUEST_EVENTS.has(eventName)) || mayBeOpen(eventName)
        ? readEvent()
        : { name: eventName, payload: {} };
    const request = readRequest(given.trigger, event);
    // A request is a conversation: it is answered where it was asked, whatever `comment` says.
    const inputs = request.kind === 'request' ? { ...given, comment: true } : given;
    step.accepted(inputs);
    if (request.kind === 'request') held.asked = true;
    const github = () =>
      (held.github ??= loadGitHubReport(
        { ...inputs, ...(request.kind === 'request' ? { asked: request.comment } : {}) },
        loadGitHub,
      ));
    const admission = await admit(
      inputs,
      event,
      request,
      async (actor) => (await github())?.accessOf(actor, cancellation.signal),
      process.env.GITHUB_ACTOR,
    );
    if (admission.kind === 'skip') {
      step.skip(admission.notice);
      if (admission.answer) {
        held.answer = admission.answer;
        void github();
      }
    } else {
      const connection = (held.connection = connect(inputs.baseUrl));
      // Loaded while the job is being created, so the GitHub side adds no wait of its own (unless
      // the prompt needs the event's context first).
      if (wantsGitHub(inputs, eventName)) void github();
      await work(inputs, admission.prompt, step, connection, held);
    }
  } catch (error) {
    step.fail(error);
    // Positions are in dist/index.js; dist/index.js.map maps them to src/. (Registering
    // source-map support at start-up would cost every run time, see npm run bench.)
    if (core.isDebug() && error instanceof Error && error.stack) log.debug(redact(error.stack));
  } finally {
    await held.connection?.dispatcher.destroy().catch(() => undefined);
  }

  if (step.skipped) {
    await endSkipped(step.skipped, held, cancellation.signal);
    cancellation.dispose();
    return;
  }
  try {
    if (step.id) setJobOutputs(step.id, step.job, (message) => log.warning(message), held.jobIdOutput);
  } catch (error) {
    step.fail(error);
  }
  step.stopClock();
  if (step.job) {
    await writeSummary({ job: step.job, waitedMs: step.waitedMs, failure: step.failure }).catch(
      (error: unknown) => log.warning(`Could not write the step summary: ${describeThrown(error)}.`),
    );
  }
  if (step.failure) core.setFailed(step.failure);

  // The GitHub side comes last, so that a signal while it works cannot cost the outputs, the
  // summary or the step's error. Its faults are warnings: they never change the step's result.
  const github = await held.github;
  const outcome = step.outcome();
  if (github && !outcome && held.asked && step.failure) {
    const url = await github.notStarted(step.failure, cancellation.signal).catch((error: unknown) => {
      log.warning(`Could not answer on the thread: ${describeThrown(error)}.`);
      return undefined;
    });
    if (url) setCommentUrl(url, (m) => log.warning(m));
  }
  if (github && outcome) {
    const commentUrl = await github.finish(outcome, cancellation.signal);
    try {
      if (commentUrl) setCommentUrl(commentUrl, (m) => log.warning(m));
    } catch (error) {
      // A step that failed already keeps its first error.
      if (!outcome.failure) core.setFailed(step.fail(error));
    }
  }
  // Only now: a signal while the outputs and summary are written must not kill the process
  // halfway through them (the handler is harmless once the work is done).
  cancellation.dispose();
}

/**
 * A step that does nothing ends here: one notice, `status` and `mode` `skipped`, and on a bare
 * `/docs` a word on the thread. No summary, no error, no comment about a job.
 */
async function endSkipped(notice: string, held: Resources, cancellation: AbortSignal): Promise<void> {
  log.notice(notice);
  try {
    setOutput('status', 'skipped');
    setOutput('mode', 'skipped');
  } catch (error) {
    core.setFailed(describeThrown(error));
    return;
  }
  const github = await held.github;
  if (!github || !held.answer) return;
  const url = await github.answer(held.answer, cancellation).catch((error: unknown) => {
    log.warning(`Could not answer on the thread: ${describeThrown(error)}.`);
    return undefined;
  });
  if (url) setCommentUrl(url, (m) => log.warning(m));
}

/**
 * Before anything is printed: the key, both GitHub tokens (on every run: the runner does not show
 * add-mask lines, and a refused input must not leave them unmasked), and a proxy's password, which
 * error text from the HTTP stack may carry.
 */
function maskRunSecrets(): void {
  maskSecret(core.getInput('apiKey'));
  for (const name of ['githubToken', 'docsToken']) {
    const value = core.getInput(name);
    if (givenToken(value)) maskSecret(value);
  }
  for (const password of proxyPasswords(process.env)) if (password.length >= MIN_SECRET) maskSecret(password);
  for (const name of RUNNER_TOKENS) redactAlso(process.env[name]);
}

/** The work between valid inputs and the job's end; what it learns goes into `step`. */
async function work(
  inputs: Inputs,
  written: string | undefined,
  step: JobRun,
  connection: Connection,
  held: Resources,
): Promise<void> {
  const { signal, clock } = step;
  const { github } = held;
  if (connection.proxy) log.info(`Using the proxy ${connection.proxy}.`);
  const client = new AgentClient({
    baseUrl: inputs.baseUrl,
    projectId: inputs.projectId,
    apiKey: inputs.apiKey,
    dispatcher: connection.dispatcher,
    userAgent: userAgent(),
    now: () => clock.now(),
  });
  const deadline = step.startedAt + inputs.timeout;
  const context: FaultContext = {
    operation: 'create',
    baseUrl: inputs.baseUrl,
    projectId: inputs.projectId,
    proxy: connection.proxy,
  };

  if (inputs.promptFile) {
    log.info(
      `The prompt is read from ${label(inputs.promptFile)} (${inputs.prompt?.length ?? 0} characters).`,
    );
  }
  // What GitHub remembers decides which way the run goes: only on the paths that asked for it.
  const remembers = inputs.thread || inputs.status || (inputs.comment && runAttempt() > 1);
  // Awaited only where the create needs it first; otherwise the chunk loads beside the create.
  const report = remembers || inputs.context === 'auto' ? await github : undefined;
  const { mode, since } = await planJob(
    { ...inputs, prompt: written, runId: runId(), attempt: runAttempt() },
    report && remembers
      ? {
          recall: () => report.recall(signal),
          docsPullState: (link) => report.docsPullState(link, signal),
        }
      : undefined,
    client,
    log,
  );
  let prompt = onlyWaits(mode) ? undefined : written;
  if (prompt !== undefined && inputs.context === 'auto' && report) {
    const section = since
      ? await report.contextSince(since, inputs.contextLimit, signal)
      : await report.contextFor(inputs.contextLimit, signal);
    if (section) prompt = `${prompt}\n\n${section}`;
  }
  if (prompt !== undefined) prompt = withoutRunSecrets(prompt);
  step.sendingFor(mode);
  const started = await startJob(client, mode, prompt, { clock, deadline, log, context, signal });
  step.started(started);
  setOutput('jobId', escapeUnsafe(started.id));
  held.jobIdOutput = started.id;
  setOutput('mode', modeOutput(mode));
  // Without waiting, the comment is written once, at the end.
  if (inputs.wait) (await github)?.started(started.id, started.job);

  const read: ReadJob = (call) => client.getJob(started.id, call);
  const getContext: FaultContext = { ...context, operation: 'get', jobId: started.id };
  if (!inputs.wait) {
    // Without a prompt there is nothing created to report: read the job once.
    const job = started.job ?? (await readJobOnce(read, getContext, signal));
    step.ended({ job, timedOut: false });
  } else {
    step.ended(
      await waitForJob(read, started.id, started.job, {
        clock,
        deadline,
        pollIntervalMs: inputs.pollInterval,
        createdAt: started.createdAt,
        settledAfter: started.settledAfter,
        log,
        context: getContext,
        signal,
        onJob: (latest) => step.saw(latest),
      }),
    );
  }
  if (!step.timedOut && step.job) sayHowItEnded(step.job, inputs);
}

/**
 * The prompt as it may leave: a file, the event's text or a careless `prompt:` can hold the key,
 * a token or the runner's own credentials, and the service is not where they belong. What was
 * taken out is never said, only that something was.
 */
function withoutRunSecrets(prompt: string): string {
  const clean = redact(prompt);
  if (clean !== prompt) {
    log.warning(
      'The prompt held a secret of this run (the API key, a GitHub token, a proxy password or a runner token); it was replaced by *** before the prompt was sent.',
    );
  }
  return clean;
}

/** The log's last word on a job that did not fail the step (a failure is the step's error). */
function sayHowItEnded(job: AgentJob, inputs: Inputs): void {
  if (job.status === 'completed') {
    log.info(
      job.prLink
        ? `Agent job ${label(job.id)} completed: ${printableUrl(job.prLink)}`
        : `Agent job ${label(job.id)} completed without a pull request (no files changed).`,
    );
  } else if (!isTerminal(job.status) && !inputs.wait) {
    // Only reachable with `wait: false`: the job goes on without this step.
    log.info(`Agent job ${label(job.id)} goes on in the service (wait is false).`);
  }
}

/**
 * The GitHub side, in its own chunk of dist/: a run that asks for none of it never loads
 * Octokit. A chunk that cannot load is a warning, like any other GitHub fault.
 */
async function loadGitHubReport(
  inputs: Inputs & { asked?: RequestComment },
  load: LoadGitHub,
): Promise<GitHubReport | undefined> {
  try {
    const { startGitHubReport } = await load();
    return startGitHubReport({ ...inputs, userAgent: userAgent() }, log);
  } catch (error) {
    log.warning(
      `Could not load the GitHub side of the action: ${describeThrown(error)}. The job goes on without it.`,
    );
    return undefined;
  }
}

/** `GITHUB_RUN_ID`: the run, the same for each of its attempts. */
function runId(): number {
  return Number(process.env.GITHUB_RUN_ID) || 0;
}

/** `GITHUB_RUN_ATTEMPT`: 2 and above for a re-run. */
function runAttempt(): number {
  return Number(process.env.GITHUB_RUN_ATTEMPT) || 1;
}

/**
 * Lets the service's operators see which release and which workflow run made a request: the
 * action's ref as the runner gives it (`GITHUB_ACTION_REF`: `v1`, `v1.2.0`, a commit), so that a
 * release is a tag and nothing in dist/ changes with it. Read from the runner's variables
 * directly: `@actions/github`'s `context` would bring Octokit into the main bundle.
 */
function userAgent(): string {
  const {
    GITHUB_SERVER_URL: server = 'https://github.com',
    GITHUB_REPOSITORY: repo,
    GITHUB_RUN_ID: runId,
    GITHUB_ACTION_REF: ref = '',
  } = process.env;
  // A product version is one token: a branch such as `feature/x` keeps its letters, not its slash.
  const version = ref.replace(/[^\w.-]/g, '-').slice(0, 64);
  const run = repo && runId ? ` (+${server}/${repo}/actions/runs/${runId})` : '';
  return `agent-job-action${version ? `/${version}` : ''}${run}`;
}
