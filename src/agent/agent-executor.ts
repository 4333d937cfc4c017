import path from 'node:path';
import type { Kysely } from 'kysely';
import type { ModelMessage } from 'ai';
import type { Logger } from 'pino';
import type { AgentSettings, ProviderSettings } from '../config.js';
import { RedlineError } from '../errors.js';
import { GitError, checkBranchName, git } from '../git/git.js';
import type { Workspaces, Worktree } from '../git/workspace.js';
import type { CodeHost } from '../hosts/host.js';
import { JobFailure } from '../jobs/executor.js';
import type { RunContext, RunExecutor, RunResult } from '../jobs/executor.js';
import type { CheckProblem } from '../jobs/job-view.js';
import { createLanguageModel } from '../models/registry.js';
import type { HostKind, Project } from '../projects/projects.js';
import type { DB } from '../store/schema.js';
import { detectFramework } from './checks/framework.js';
import { changedFiles, validateChanges } from './checks/validate.js';
import { finalDiffViolations } from './final-diff.js';
import { GuardError, PathGuard } from './guardrails.js';
import { runAgentLoop } from './loop.js';
import { repositoryNotes, systemPrompt } from './prompt.js';
import type { ToolContext } from './tools/context.js';
import { agentTools } from './tools/index.js';
import { Transcript } from './transcript.js';
import { pullRequestBody } from './pull-request-body.js';
import type { RunAccount } from './pull-request-body.js';

export interface AgentExecutorOptions {
  db: Kysely<DB>;
  workspaces: Workspaces;
  hosts: Partial<Record<HostKind, CodeHost>>;
  providers: ProviderSettings;
  settings: AgentSettings;
  log: Logger;
}

const REPAIR_ROUNDS = 3;

/** Commit trailer naming the run that made a commit, so a re-run recognises its own push. */
const RUN_TRAILER = 'Redline-Run';

/** Title and summary of `sha` when it is the commit of run `runId`, else null. */
async function commitOfRun(
  dir: string,
  sha: string,
  runId: string,
): Promise<{ title: string; summary: string } | null> {
  const out = await git(
    ['log', '-1', `--format=%(trailers:key=${RUN_TRAILER},valueonly,separator=%x2C)%x00%s%x00%b`, sha],
    { cwd: dir },
  );
  const [trailer, title, body] = out.split('\0');
  if (trailer?.trim() !== runId) return null;
  const summary = (body ?? '').replace(new RegExp(`\\n*${RUN_TRAILER}: .*\\s*$`), '').trim();
  return { title: title ?? '', summary };
}

const branchFor = (jobId: string) => `redline/${jobId}`;

/** Runs the docs agent for one run of a job, end to end (DESIGN.md §2). */
export class AgentExecutor implements RunExecutor {
  constructor(private readonly o: AgentExecutorOptions) {}

  async execute({ run, job, project, signal }: RunContext): Promise<RunResult> {
    const host = this.o.hosts[project.host];
    if (!host) {
      throw new JobFailure(
        'pull_request_failed',
        `The "${project.host}" code host is not supported by this server yet; use a local project.`,
      );
    }
    const branch = branchFor(job.id);
    await checkBranchName(branch);
    let model;
    try {
      model = createLanguageModel(job.model, this.o.providers);
    } catch (err) {
      if (err instanceof RedlineError)
        throw new JobFailure('model_unavailable', `${err.message} Configure it and send a follow-up.`);
      throw err;
    }
    const authorization = await host.gitAuthorization(project);
    const transcript = new Transcript(this.o.db, job.id, run.id);
    // A run claimed again (its worker died, or shut down and released it) starts its transcript
    // afresh; the first attempt finds nothing to clear.
    await transcript.clearEarlierAttempts();
    const worktree = await this.#checkout(project, branch, signal, authorization, run.id);
    try {
      const guard = await PathGuard.create(worktree.dir, project.docsRoot).catch((err: unknown) => {
        if (err instanceof GuardError)
          throw new JobFailure('repository_not_found', `${err.message}; fix the project's docs root.`);
        throw err;
      });
      const framework = detectFramework(guard.docsRoot);
      const s = this.o.settings;
      const limits = { maxFileBytes: s.maxFileBytes, maxChangedFiles: s.maxChangedFiles };
      const ctx: ToolContext = {
        dir: worktree.dir,
        guard,
        framework,
        baseSha: worktree.baseSha,
        limits,
        signal,
        changed: new Set(),
        finished: null,
      };
      // The run's own commit is already on the branch: its worker died after the push. Its work
      // is done; what is left is the pull request, so the model is not asked again.
      const earlier = await this.#earlierRuns(job.id, run.seq);
      // Files the job's earlier runs changed count against its changed-files budget.
      const earlierChanges = worktree.branchExisted
        ? (await changedFiles(worktree.dir, worktree.baseSha)).map((c) => c.path)
        : [];
      for (const p of earlierChanges) ctx.changed.add(guard.relative(path.join(guard.repoRoot, p)));
      const pushed = worktree.branchExisted
        ? await commitOfRun(worktree.dir, worktree.startSha, run.id)
        : null;
      const result = pushed
        ? ({
            finished: pushed,
            lastText: '',
            usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
            stoppedBy: 'finish',
            problems: null,
          } as const)
        : await runAgentLoop({
            model,
            modelName: job.model,
            system: systemPrompt({
              framework,
              notes: await repositoryNotes(worktree.dir, guard.docsRoot),
              maxSteps: s.maxSteps,
              maxChangedFiles: s.maxChangedFiles,
            }),
            messages: [
              // The conversation so far: earlier prompts and the agent's final reply to each.
              ...earlier.flatMap((r): ModelMessage[] => [
                { role: 'user', content: r.prompt },
                ...(r.summary ? [{ role: 'assistant' as const, content: r.summary }] : []),
              ]),
              { role: 'user', content: run.prompt },
            ],
            tools: agentTools(ctx),
            ctx,
            limits: {
              maxSteps: s.maxSteps,
              maxTokens: s.maxTokens,
              timeoutMs: s.timeoutSeconds * 1000,
              modelTimeoutMs: s.modelTimeoutSeconds * 1000,
              maxRetries: s.modelMaxRetries,
              retryBaseMs: s.modelRetryBaseMs,
              repairRounds: REPAIR_ROUNDS,
            },
            stream: s.stream,
            signal,
            onEvent: (e) => transcript.record(e),
          });

      try {
        const stopNote =
          result.stoppedBy === 'step_limit'
            ? `The agent stopped at its limit of ${s.maxSteps} steps before finishing.`
            : result.stoppedBy === 'token_limit'
              ? `The agent stopped at its limit of ${s.maxTokens} tokens before finishing.`
              : null;
        const title = result.finished?.title ?? firstLine(run.prompt);
        const summary = [
          result.finished?.summary ?? (result.lastText || 'The agent ended without a summary.'),
          stopNote,
        ]
          .filter(Boolean)
          .join('\n\n');

        // The whole change, tools or not, is checked before anything leaves the worktree.
        const changes = await changedFiles(worktree.dir, worktree.startSha);
        if (changes.length > 0) {
          const violations = await finalDiffViolations(
            worktree.dir,
            guard,
            changes,
            limits,
            worktree.startSha,
            { earlierChanges },
          );
          if (violations.length > 0) {
            throw new JobFailure(
              'forbidden_change',
              `The change touched files the agent may not change, so nothing was pushed: ${violations.join('; ')}.`,
            );
          }
        }
        let problems: CheckProblem[] | undefined;
        if (changes.length > 0 || worktree.branchExisted) {
          problems =
            result.problems ??
            (await validateChanges({ dir: worktree.dir, guard, framework, baseSha: worktree.baseSha }));
          if (stopNote) problems = [...problems, { file: '(agent)', message: stopNote }];
        }

        if (signal.aborted) throw signal.reason;
        if (changes.length > 0) {
          await this.o.workspaces.commitAll(worktree, `${title}\n\n${summary}`, { [RUN_TRAILER]: run.id });
          await this.#push(project, worktree, branch, signal, authorization);
        }
        await transcript.final(result.finished?.title ?? null, summary);

        const headSha = (await git(['rev-parse', 'HEAD'], { cwd: worktree.dir })).trim();
        // Nothing on the branch beyond the base (no change now, none before): no pull request.
        if (headSha === worktree.baseSha) {
          return { summary, prLink: null, usage: result.usage, ...(problems ? { checks: problems } : {}) };
        }
        if (signal.aborted) throw signal.reason;
        const prLink = await this.#ensurePullRequest(host, project, {
          jobId: job.id,
          head: branch,
          base: project.ref,
          title,
          body: pullRequestBody({
            runs: [...earlier, { prompt: run.prompt, summary }],
            problems: problems ?? [],
            jobId: job.id,
          }),
          draft: (problems ?? []).length > 0,
          headSha,
          baseSha: worktree.baseSha,
          changed: changes.length > 0,
        });
        return { summary, prLink, usage: result.usage, branch, checks: problems ?? [] };
      } catch (err) {
        // Tokens spent by the loop count on the job even when delivering its work failed.
        if (err instanceof JobFailure && !err.usage) err.usage = result.usage;
        throw err;
      }
    } finally {
      await this.o.workspaces
        .remove(project.repository, worktree)
        .catch((err: Error) =>
          this.o.log.warn({ err: err.message, dir: worktree.dir }, 'could not remove worktree'),
        );
    }
  }

  /**
   * Opens the PR for the branch or updates the one that exists. The host is asked first, so a
   * re-run after a crash between push and PR never opens a second one.
   */
  async #ensurePullRequest(
    host: CodeHost,
    project: Project,
    change: Parameters<CodeHost['openPullRequest']>[1] & { changed: boolean },
  ): Promise<string> {
    try {
      const existing = await host.findPullRequest(project, change.head);
      if (!existing) return (await host.openPullRequest(project, change)).url;
      // The first run's title names the pull request; follow-ups add to its description.
      if (change.changed) {
        return (await host.updatePullRequest(project, existing.number, { ...change, title: existing.title }))
          .url;
      }
      return existing.url;
    } catch (err) {
      this.o.log.error({ err: (err as Error).message }, 'pull request failed');
      throw new JobFailure(
        'pull_request_failed',
        `The branch ${change.head} was pushed, but the pull request could not be opened or updated: ${(err as Error).message.slice(0, 300)}. Send a follow-up to retry.`,
      );
    }
  }

  async #checkout(
    project: Project,
    branch: string,
    signal: AbortSignal,
    authorization: string | undefined,
    runId: string,
  ): Promise<Worktree> {
    try {
      return await this.o.workspaces.checkout(project.repository, project.ref, branch, {
        signal,
        authorization,
        runId,
      });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      // git's own words, without the command line around them (the message is shown to callers).
      const message = (err instanceof GitError ? err.stderr : (err as Error).message)
        .replace(/^(fatal|error): /gm, '')
        .split('\n')
        .filter(Boolean)
        .join(' ')
        .trim();
      if (/does not exist|not found|does not appear to be a git repository|No such file/i.test(message)) {
        throw new JobFailure(
          'repository_not_found',
          `The repository or its base branch "${project.ref}" was not found: ${message.slice(0, 300)}`,
        );
      }
      if (/denied|403|401|Authentication failed|could not read Username/i.test(message)) {
        throw new JobFailure(
          'repository_access_denied',
          'The repository refused access; check the code-host credentials of the project.',
        );
      }
      throw err;
    }
  }

  async #push(
    project: Project,
    worktree: Worktree,
    branch: string,
    signal: AbortSignal,
    authorization: string | undefined,
  ) {
    try {
      await this.o.workspaces.push(project.repository, worktree, branch, { signal, authorization });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw new JobFailure(
        'push_rejected',
        `Pushing ${branch} was rejected: ${(err as Error).message.slice(0, 300)}`,
      );
    }
  }

  /** Earlier prompts of the job, each with the agent's final reply (null if it had none). */
  async #earlierRuns(jobId: string, seq: number): Promise<RunAccount[]> {
    const rows = await this.o.db
      .selectFrom('messages')
      .innerJoin('runs', 'runs.id', 'messages.run_id')
      .select(['messages.role', 'messages.content', 'messages.data'])
      .where('messages.job_id', '=', jobId)
      .where('runs.seq', '<', seq)
      .where('messages.role', 'in', ['user', 'assistant'])
      .orderBy('runs.seq')
      .orderBy('messages.id')
      .execute();
    const runs: RunAccount[] = [];
    for (const r of rows) {
      if (r.role === 'user') runs.push({ prompt: r.content, summary: null });
      else if (runs.length > 0 && r.data && (JSON.parse(r.data) as { final?: boolean }).final) {
        runs[runs.length - 1]!.summary = r.content;
      }
    }
    return runs;
  }
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0]!;
  return line.length > 72 ? `${line.slice(0, 69)}…` : line;
}
