import * as core from '@actions/core';
import { listenForCancellation } from './execute/cancel.js';
import { AgentClient } from './service/client.js';
import { systemClock, type Clock } from './core/clock.js';
import { decide, type Decision } from './decide/decide.js';
import { connect, proxyPasswords, type Connection } from './service/dispatcher.js';
import type { FaultContext } from './service/errors.js';
import { execute } from './execute/execute.js';
import { givenToken, InputError, type Inputs } from './decide/inputs.js';
import { JobRun } from './execute/job-run.js';
import { coreLog, describeThrown, failStep, type Log } from './core/log.js';
import { report } from './report-step.js';
import { reportWaiting, type Recalled } from './report-waiting.js';
import { sweep } from './sweep.js';
import { setOutput } from './report/outputs.js';
import type { Accepted, LazyGitHub } from './accepted.js';
import { label } from './core/untrusted.js';
import type { ReportRequest } from './core/ports.js';
import type { GitHubSteps } from './core/sweep-ports.js';
import { readRunContext, type RunContext } from './core/run-context.js';
import { maskSecret, MIN_SECRET, redact, redactAlso, RUNNER_TOKENS } from './core/secrets.js';
import { readSetup } from './decide/setup.js';
import type { RequestComment } from './decide/trigger.js';

/** The GitHub side, made for one run from what it asked for; its chunk of dist/ loads only when called. */
export type MakeGitHub = (
  request: ReportRequest & { userAgent: string },
  run: RunContext,
  log: Log,
  clock: Clock,
) => Promise<GitHubSteps>;

const loadGitHubChunk: MakeGitHub = async (request, run, log, clock) =>
  (await import('./github/index.js')).startGitHub(request, run, log, clock);

/** What `run()` is given; the action passes nothing, tests their own. */
export interface RunDeps {
  clock?: Clock;
  github?: MakeGitHub;
  /** The bound of `paths` matching's work, when a test reaches it in less time than the action's own. */
  pathsWork?: number;
}

/** The service, reached through the proxy the runner's variables name for it. */
interface Service {
  client: AgentClient;
  connection: Connection;
  faults: FaultContext;
}

/**
 * The action, in three steps that hand each other values: decide (inputs, who asked, what earlier
 * runs left, which way to go, the prompt), execute (send, wait), report (outputs, summary, then
 * GitHub). Every failure, whatever was thrown, ends in one `failStep` line and a non-zero exit;
 * outputs and the summary are written on every path, cancellation included.
 */
export async function run(deps: RunDeps = {}): Promise<void> {
  const clock = deps.clock ?? systemClock;
  const startedAt = clock.now();
  maskRunSecrets();
  const cancellation = listenForCancellation();
  const { signal } = cancellation;
  const step = new JobRun(clock, signal, startedAt);
  const context = readRunContext();
  if (secretlessDependabot(context)) {
    cancellation.dispose();
    return;
  }
  const accepted = await attempt(step, () => accept(step, context, deps.pathsWork));
  const make = deps.github ?? loadGitHubChunk;
  const github = accepted && lazyGitHub(accepted, clock, make);
  // Loaded while the decision starts, so the GitHub side adds no wait of its own; a comment
  // that is no request loads nothing.
  if (accepted?.features.load) void github?.load();
  const service =
    accepted && (await attempt(step, async () => reach(accepted.inputs, accepted.context, clock)));
  const sides = github ? [github] : [];
  // A thread's pass besides the run's own, over a GitHub side of its own: the quota uses it spent,
  // and whether it was held (decided to send nothing, and did not fail).
  const carryAlso = async (theirs: Accepted, thread: number): Promise<{ uses: number; held: boolean }> => {
    const side = lazyGitHub(theirs, clock, make);
    sides.push(side);
    const their = new JobRun(clock, signal, clock.now());
    their.accepted(theirs.inputs);
    await carry(their, { accepted: theirs, service, github: side, startedAt: clock.now() }, thread);
    return { uses: their.uses, held: their.mode === undefined && their.failure === undefined };
  };
  if (accepted?.features.sweep && service && github) {
    await sweep({ accepted, client: service.client, github, step, carry: carryAlso });
  } else {
    await carry(step, { accepted, service, github, startedAt });
  }

  // A push that landed several merges (a merge queue's group): the pushed commit's thread is the
  // outputs'; each other merged pull request's thread is told in turn, as its own merge's push
  // would have told it.
  const alongside =
    accepted?.features.thread && accepted.context.event.kind === 'push' && service && !signal.aborted
      ? await (await github?.asked)?.decide.mergedAlongside(signal)
      : undefined;
  for (const merge of alongside ?? []) {
    if (signal.aborted || !accepted) break;
    coreLog.info(`This push also merged pull request #${merge.number}: its thread is told too.`);
    // Each other thread's lines folded under its own heading in the run's log.
    core.startGroup(`#${merge.number}: its thread`);
    try {
      await carryAlso({ ...accepted, context: atMergeOf(accepted.context, merge.sha) }, merge.number);
    } finally {
      core.endGroup();
    }
  }
  await service?.connection.dispatcher.destroy().catch(() => undefined);

  const applied = accepted?.features.removeLabel;
  if (applied) await (await github?.asked)?.report.removeLabel(applied, signal);
  // Only now: a signal while the outputs and summary are written must not kill the process
  // halfway through them (the handler is harmless once the work is done).
  cancellation.dispose();
  // Last, once nothing more is written on GitHub: its clients' kept-alive sockets would otherwise
  // outlive the run (as the service's would, closed above).
  for (const side of sides) await (await side.asked)?.close().catch(() => undefined);
}

/** What one thread's pass through the three steps works with. */
interface Carrying {
  accepted: Accepted | undefined;
  service: Service | undefined;
  github: LazyGitHub | undefined;
  startedAt: number;
}

/**
 * One thread's pass: the end of a job it was waiting for, then decide, execute, report. `alongside`: the number of another pull request
 * this push merged, whose thread the run tells besides its own (not the outputs').
 */
async function carry(
  step: JobRun,
  { accepted, service, github, startedAt }: Carrying,
  alongside?: number,
): Promise<void> {
  // Done before the decision starts: nothing of it may outlive the run. A fault reading the thread
  // is the decision's to take up (it ends the step); a run skipped before that leaves it.
  const recalled =
    accepted && github && service
      ? await reportWaiting(accepted, service, github, step).catch((error: unknown) => ({ error }))
      : undefined;
  const decision =
    accepted && github && service
      ? await attempt(step, () => decideFor(accepted, service, github, step, startedAt, recalled))
      : undefined;
  const executed =
    accepted && service && decision?.kind === 'go' && !accepted.features.dryRun
      ? await execute(decision, accepted.inputs, step, {
          client: service.client,
          log: coreLog,
          ...(github?.asked ? { github: github.asked.then((steps) => steps?.execute) } : {}),
          context: service.faults,
          ...(alongside === undefined ? {} : { outputs: false }),
        })
      : undefined;
  if (executed?.failed) fail(step, executed.failed.error);
  await report(
    step,
    { accepted, decision, executed },
    github,
    step.signal,
    ...(alongside === undefined ? [] : [{ thread: alongside, ...(accepted?.quiet ? { quiet: true } : {}) }]),
  );
}

/** The run as the push of another pull request's merge commit `sha` would have been. */
function atMergeOf(context: RunContext, sha: string): RunContext {
  const { event } = context;
  return event.kind === 'push' ? { ...context, sha, event: { ...event, after: sha } } : context;
}

/**
 * A run GitHub starts for Dependabot gets no Actions secrets (only Dependabot's own): with the key
 * empty there, the step ends skipped with a notice instead of failing every Dependabot event.
 */
function secretlessDependabot(context: RunContext): boolean {
  if (context.actor !== 'dependabot[bot]' || core.getInput('apiKey') !== '') return false;
  coreLog.notice(
    'Skipped: this run is for Dependabot, and GitHub gives runs for Dependabot no Actions secrets, so apiKey is empty. Nothing was sent. (Give the key as a Dependabot secret too to run for it.)',
  );
  try {
    setOutput('status', 'skipped');
    setOutput('mode', 'skipped');
    setOutput('uses', '0');
  } catch (error) {
    failStep(describeThrown(error));
  }
  return true;
}

/** The setup (inputs, context, request, features) and `paths`, read and checked before anything is sent. */
async function accept(step: JobRun, context: RunContext, pathsWork?: number): Promise<Accepted> {
  const setup = readSetup((name) => core.getInput(name), context);
  const { inputs } = setup;
  // Checked before anything is sent; the matcher loads only when `paths` is set.
  const paths = inputs.paths.length > 0 ? await compilePaths(inputs.paths, pathsWork) : undefined;
  step.accepted(inputs);
  return { ...setup, ...(paths ? { paths } : {}) };
}

/** The first step, over the service's client and the GitHub side's reads. */
function decideFor(
  accepted: Accepted,
  service: Service,
  github: LazyGitHub,
  step: JobRun,
  startedAt: number,
  recalled?: Recalled | { error: unknown },
): Promise<Decision> {
  const { inputs, context, request, features } = accepted;
  if (inputs.promptFile) {
    coreLog.info(
      `The prompt is read from ${label(inputs.promptFile)} (${inputs.prompt?.length ?? 0} characters).`,
    );
  }
  return decide(inputs, {
    event: context.event,
    request,
    features,
    ...(accepted.paths ? { paths: accepted.paths } : {}),
    github: async () => (await github.load())?.decide,
    client: service.client,
    log: coreLog,
    clock: step.clock,
    deadline: startedAt + inputs.timeout,
    context: service.faults,
    signal: step.signal,
    run: { runId: context.runId, attempt: context.runAttempt, actor: context.actor },
    ...(recalled ? { recalled } : {}),
    ...(accepted.onDocs ? { onDocs: accepted.onDocs } : {}),
  });
}

/** The service's client, through the proxy its URL's rules name. */
function reach(inputs: Inputs, context: RunContext, clock: Clock): Service {
  const connection = connect(inputs.baseUrl);
  if (connection.proxy) coreLog.info(`Using the proxy ${connection.proxy}.`);
  const client = new AgentClient({
    baseUrl: inputs.baseUrl,
    projectId: inputs.projectId,
    apiKey: inputs.apiKey,
    dispatcher: connection.dispatcher,
    userAgent: userAgent(context),
    now: () => clock.now(),
  });
  const faults: FaultContext = {
    operation: 'create',
    baseUrl: inputs.baseUrl,
    projectId: inputs.projectId,
    proxy: connection.proxy,
  };
  return { client, connection, faults };
}

/** `work`'s value, or `undefined` once what it threw became the step's error. */
async function attempt<T>(step: JobRun, work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    fail(step, error);
    return undefined;
  }
}

function fail(step: JobRun, error: unknown): void {
  step.fail(error);
  // Positions are in dist/index.js; dist/index.js.map maps them to src/. (Registering
  // source-map support at start-up would cost every run time, see npm run bench.)
  if (core.isDebug() && error instanceof Error && error.stack) coreLog.debug(redact(error.stack));
}

/**
 * `paths`, compiled by the matcher in its own chunk of dist/ (loaded only when `paths` is set); a
 * pattern GitHub's filters would not read is a bad input, before any request.
 */
async function compilePaths(lines: string[], maxWork?: number) {
  const { compilePaths: compile, PathsError } = await import('./decide/paths.js');
  try {
    return compile(lines, maxWork);
  } catch (error) {
    throw error instanceof PathsError ? new InputError(error.message) : error;
  }
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

function lazyGitHub(accepted: Accepted, clock: Clock, make: MakeGitHub): LazyGitHub {
  const { inputs, features, context, standIn } = accepted;
  const asked = features.reaction;
  let loading: Promise<GitHubSteps | undefined> | undefined;
  return {
    load: () => (loading ??= makeGitHub({ inputs, asked, standIn }, context, clock, make)),
    get asked() {
      return loading;
    },
  };
}

/**
 * The GitHub side, in its own chunk of dist/: a run that asks for none of it never loads
 * Octokit. A chunk that cannot load is a warning, like any other GitHub fault (on a thread, the
 * decision then ends the step before anything is sent).
 */
async function makeGitHub(
  { inputs, asked, standIn }: { inputs: Inputs; asked?: RequestComment; standIn?: ReportRequest['standIn'] },
  context: RunContext,
  clock: Clock,
  make: MakeGitHub,
): Promise<GitHubSteps | undefined> {
  try {
    return await make(
      {
        ...inputs,
        ...(asked ? { asked } : {}),
        ...(standIn ? { standIn } : {}),
        userAgent: userAgent(context),
      },
      context,
      coreLog,
      clock,
    );
  } catch (error) {
    coreLog.warning(
      `Could not load the GitHub side of the action: ${describeThrown(error)}. The job goes on without it.`,
    );
    return undefined;
  }
}

/**
 * Lets the service's operators see which release and which workflow run made a request: the
 * action's ref as the runner gives it (`GITHUB_ACTION_REF`: `v1`, `v1.2.0`, a commit), so that a
 * release is a tag and nothing in dist/ changes with it.
 */
function userAgent(context: RunContext): string {
  const ref = process.env.GITHUB_ACTION_REF ?? '';
  // A product version is one token: a branch such as `feature/x` keeps its letters, not its slash.
  const version = ref.replace(/[^\w.-]/g, '-').slice(0, 64);
  const { owner, repo } = context.repo;
  const runLink =
    owner && context.runId ? ` (+${context.serverUrl}/${owner}/${repo}/actions/runs/${context.runId})` : '';
  return `agent-job-action${version ? `/${version}` : ''}${runLink}`;
}
