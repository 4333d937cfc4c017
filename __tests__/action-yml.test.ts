// action.yml is the contract workflows are written against (docs/design.md §2, §4).
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { emulators, gitHubEmulators, KEY, runHere as run, warnings } from '../__fixtures__/e2e.js';
import { pushTo, APP, DOCS_TOKEN, gitHubEnv, world } from '../__fixtures__/github-world.js';
import { actionYml, ROOT } from '../__fixtures__/runner.js';
import { OPTIONAL_DEFAULTS, readInputs } from '../src/decide/inputs.js';

describe('action.yml', () => {
  it('declares every input the action reads, and the action reads every input it declares', () => {
    // Every feature on, so that every input is read (tokens are read only when a feature needs them).
    const given: Record<string, string> = {
      prompt: 'x',
      projectId: 'p',
      apiKey: 'mint_action_yml_key',
      baseUrl: 'https://api.example.com',
      wait: 'true',
      timeout: '30m',
      pollInterval: '10s',
      context: 'auto',
      contextLimit: '20000',
      comment: 'true',
      labels: 'docs',
      reviewers: 'octocat',
      githubToken: 'ghs_action_yml_token',
      docsToken: 'ghs_action_yml_docs',
      trigger: '/docs',
      status: 'true',
    };
    const read = new Set<string>();
    readInputs((name) => {
      read.add(name);
      return given[name] ?? '';
    });
    expect([...read].sort()).toEqual(Object.keys(actionYml.inputs).sort());
  });

  it('describes each input, with string defaults; no default for the key and the host', () => {
    for (const input of Object.values(actionYml.inputs)) expect(input.description.length).toBeGreaterThan(20);
    const defaults = Object.values(actionYml.inputs).filter((input) => 'default' in input);
    for (const input of defaults) expect(typeof input.default).toBe('string');
    // A key is never sent to a host the workflow did not name.
    expect('default' in (actionYml.inputs.apiKey ?? {})).toBe(false);
    expect('default' in (actionYml.inputs.baseUrl ?? {})).toBe(false);
    // What a local run that passes nothing gets is what the runner passes.
    for (const [name, value] of Object.entries(OPTIONAL_DEFAULTS))
      expect(actionYml.inputs[name]?.default).toBe(value);
    expect(actionYml.inputs.githubToken?.default).toBe('${{ github.token }}');
  });

  it('declares every output the action sets (docs/design.md §4)', () => {
    const set = new Set<string>();
    for (const file of readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      const text = readFileSync(join(ROOT, 'src', file), 'utf8');
      for (const [, name] of text.matchAll(/setOutput\(\s*'(\w+)'/g)) set.add(name ?? '');
    }
    expect([...set].sort()).toEqual(Object.keys(actionYml.outputs).sort());
    for (const output of Object.values(actionYml.outputs))
      expect(output.description.length).toBeGreaterThan(10);
  });

  it('runs dist/index.js on Node 24', () => {
    expect(actionYml.runs).toEqual({ using: 'node24', main: 'dist/index.js' });
  });
});

describe('README', () => {
  // The README is the reference; docs/examples.md holds the workflows. A workflow that does not
  // parse is refused by GitHub as a whole, so every YAML block of either must be one GitHub would
  // accept, and use only the inputs action.yml declares.
  const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
  const files = ['README.md', 'docs/examples.md'];
  const blocks = files.flatMap((file) => {
    const markdown = read(file);
    return [...markdown.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m, i) => {
      // Named by the heading it stands under, so that a failure says where to look.
      const under = [...markdown.slice(0, m.index).matchAll(/^#+ (.*)$/gm)].pop()?.[1] ?? 'the top';
      return { name: `${file} example ${i + 1} (${under})`, text: m[1] ?? '' };
    });
  });
  const parsed = (text: string) => parse(text) as unknown;
  type Node = Record<string, unknown>;
  const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null;
  /** Every mapping in a parsed block that has a `uses:` (the steps), wherever it sits. */
  const steps = (value: unknown): Node[] =>
    Array.isArray(value)
      ? value.flatMap(steps)
      : isNode(value)
        ? [...(typeof value.uses === 'string' ? [value] : []), ...Object.values(value).flatMap(steps)]
        : [];
  const ours = (text: string) =>
    steps(parsed(text)).filter((step) => (step.uses as string).startsWith('<owner>/<repo>'));

  it('has examples in both files', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(10);
    for (const file of files) expect(blocks.some((block) => block.name.startsWith(file))).toBe(true);
    expect(blocks.filter((block) => 'jobs' in (parsed(block.text) as Node)).length).toBeGreaterThanOrEqual(
      10,
    );
  });

  it.each(blocks.map((block) => [block.name, block.text]))('%s is valid YAML', (_name, text) => {
    expect(() => {
      parse(text);
    }).not.toThrow();
    expect(isNode(parsed(text))).toBe(true);
  });

  it('has whole workflows only with `on`, and every job with `runs-on` and `steps`', () => {
    const problems: string[] = [];
    for (const { name, text } of blocks) {
      const doc = parsed(text) as Node;
      if (!('jobs' in doc)) continue;
      if (!('on' in doc)) problems.push(`${name}: no on`);
      const jobs = isNode(doc.jobs) ? Object.entries(doc.jobs) : [];
      if (jobs.length === 0) problems.push(`${name}: no jobs`);
      for (const [id, job] of jobs) {
        if (!isNode(job) || !job['runs-on']) problems.push(`${name}: job ${id} has no runs-on`);
        if (!isNode(job) || !Array.isArray(job.steps) || job.steps.length === 0)
          problems.push(`${name}: job ${id} has no steps`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('uses this action as <owner>/<repo>@v1, with every required input and only declared ones', () => {
    const declared = Object.keys(actionYml.inputs);
    const required = declared.filter((name) => actionYml.inputs[name]?.required);
    const used = new Set<string>();
    const problems: string[] = [];
    let count = 0;
    for (const { name, text } of blocks) {
      for (const step of ours(text)) {
        count++;
        if (step.uses !== '<owner>/<repo>@v1') problems.push(`${name}: uses ${String(step.uses)}`);
        const inputs = isNode(step.with) ? Object.keys(step.with) : [];
        inputs.forEach((input) => used.add(input));
        for (const input of inputs)
          if (!declared.includes(input)) problems.push(`${name}: ${input} is not declared`);
        for (const input of required) if (!inputs.includes(input)) problems.push(`${name}: no ${input}`);
      }
    }
    expect(problems).toEqual([]);
    expect(count).toBeGreaterThanOrEqual(10);
    expect(used.has('docsToken')).toBe(true);
  });

  it('guards every job that runs on an event a fork can cause without secrets', () => {
    // A fork's pull_request, pull_request_review and pull_request_review_comment runs get no
    // secrets: the step would fail on an empty apiKey. Each job that runs this action on one of
    // them skips a fork's runs; with other events beside them, the guard lets those through.
    const FORKABLE = ['pull_request', 'pull_request_review', 'pull_request_review_comment'];
    const SAME_REPO = 'github.event.pull_request.head.repo.full_name == github.repository';
    const OTHER_EVENTS = 'github.event.pull_request == null ||';
    const problems: string[] = [];
    let guarded = 0;
    for (const { name, text } of blocks) {
      const doc = parsed(text) as Node;
      if (!isNode(doc.jobs)) continue;
      const on = doc.on;
      const events =
        typeof on === 'string'
          ? [on]
          : Array.isArray(on)
            ? on.map(String)
            : isNode(on)
              ? Object.keys(on)
              : [];
      if (!events.some((event) => FORKABLE.includes(event))) continue;
      const onlyForkable = events.every((event) => FORKABLE.includes(event));
      for (const [id, job] of Object.entries(doc.jobs)) {
        if (!isNode(job) || ours(JSON.stringify(job)).length === 0) continue;
        const condition = typeof job.if === 'string' ? job.if.replace(/\s+/g, ' ') : '';
        if (!condition.includes(SAME_REPO)) problems.push(`${name}: job ${id} has no fork guard`);
        else if (!onlyForkable && !condition.includes(OTHER_EVENTS))
          problems.push(`${name}: job ${id}'s fork guard skips its other events too`);
        else guarded++;
      }
    }
    expect(problems).toEqual([]);
    expect(guarded).toBeGreaterThanOrEqual(3);
  });

  it('never puts an expression inside a `run:` script: event text goes in through `env:` or `with:`', () => {
    const runs: string[] = [];
    for (const { name, text } of blocks) {
      JSON.stringify(parsed(text), (key, value: unknown) => {
        if (key === 'run' && typeof value === 'string' && value.includes('${{'))
          runs.push(`${name}: ${value}`);
        return value;
      });
    }
    expect(runs).toEqual([]);
  });

  it('links only to files and headings that exist', () => {
    // GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, -1, -2 … on repeats.
    const anchors = (markdown: string) => {
      const seen = new Map<string, number>();
      let fence = '';
      const found: string[] = [];
      for (const line of markdown.split('\n')) {
        const marker = /^(`{3,}|~{3,})/.exec(line)?.[1];
        if (fence) {
          if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker)
            fence = '';
        } else if (marker) fence = marker;
        else {
          const heading = /^#{1,6}\s+(.*?)\s*$/.exec(line)?.[1];
          if (heading === undefined) continue;
          const slug = heading
            .toLowerCase()
            .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
            .replace(/ /g, '-');
          const n = seen.get(slug) ?? 0;
          seen.set(slug, n + 1);
          found.push(n ? `${slug}-${n}` : slug);
        }
      }
      return found;
    };
    const text = (file: string) => {
      try {
        return read(file);
      } catch {
        return undefined;
      }
    };
    const broken: string[] = [];
    for (const file of [...files, 'docs/security.md', 'docs/troubleshooting.md']) {
      const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : '';
      const prose = read(file).replace(/^(`{3,})[\s\S]*?^\1\s*$/gm, '');
      for (const [, target = ''] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path = '', anchor] = target.split('#');
        const resolved = path ? join(dir, path) : file;
        const linked = text(resolved);
        if (linked === undefined) broken.push(`${file}: ${target} (no ${resolved})`);
        else if (anchor && !anchors(linked).includes(anchor)) broken.push(`${file}: ${target} (no heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('leads with the inputs and stays short', () => {
    const readme = read('README.md');
    const inputs = readme.split('\n').indexOf('## Inputs') + 1;
    expect(inputs).toBeGreaterThan(0);
    expect(inputs).toBeLessThanOrEqual(200);
    // What a newcomer needs, and no more: the rest is in docs/.
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(22_000);
  });

  it('offers no pull_request_target route: GitHub blocks it in public repositories by default', () => {
    const runsOn = (doc: Node) => (isNode(doc.on) ? Object.keys(doc.on) : [doc.on].flat().map(String));
    const recipes = blocks.filter((block) =>
      runsOn(parsed(block.text) as Node).includes('pull_request_target'),
    );
    expect(recipes.map((block) => block.name)).toEqual([]);
    const forks = read('docs/security.md').split('## Pull requests from forks')[1]?.split('\n## ')[0] ?? '';
    expect(forks).toContain('blocked by default in public repositories since 2026-11-02');
    expect(forks).toContain('/docs');
  });

  it("says beside every `queue: max` that it is GitHub's (May 2026) and that actionlint 1.7 does not know it", () => {
    const queued = blocks.filter((block) => /^\s*queue: max$/m.test(block.text));
    expect(queued.length).toBeGreaterThanOrEqual(3);
    for (const { name, text } of queued) {
      const lines = text.split('\n');
      const at = lines.findIndex((line) => /^\s*queue: max$/.test(line));
      expect([name, lines[at - 1]?.trim()]).toEqual([
        name,
        "# queue: max is GitHub's (May 2026); actionlint 1.7 does not know it yet and reports it.",
      ]);
    }
  });

  it("puts every run of a pull request's thread in one concurrency group: its pushes, requests and merge", () => {
    // GitHub's expressions as far as the recipes' groups use them: `||` between properties and
    // literals. Anything else fails here, so that a new form is taught to this test first.
    const evaluate = (template: string, github: Node): string =>
      template.replace(/\$\{\{(.*?)\}\}/g, (_, inner: string) => {
        for (const operand of inner.split('||').map((part) => part.trim())) {
          const literal = /^'([^']*)'$/.exec(operand)?.[1];
          if (literal === undefined && !/^github(\.[\w-]+)+$/.test(operand))
            throw new Error(`cannot evaluate ${operand} in ${template}`);
          const value =
            literal ??
            operand
              .split('.')
              .slice(1)
              .reduce<unknown>((node, key) => (isNode(node) ? node[key] : undefined), github);
          if (typeof value === 'string' || typeof value === 'number') {
            if (value) return String(value);
          } else if (value !== undefined && value !== null) {
            throw new Error(`${operand} is not a string or a number in ${template}`);
          }
        }
        return '';
      });
    const N = 7;
    const pull = (action: string) => ({
      action,
      number: N,
      pull_request: { number: N, merged: action === 'closed', head: { repo: { full_name: 'acme/app' } } },
    });
    // Every run the thread of pull request N can get, by event, as GitHub starts it.
    const runsOf = (event: string, config: unknown): Node[] => {
      const types = isNode(config) && Array.isArray(config.types) ? config.types.map(String) : undefined;
      switch (event) {
        case 'pull_request':
          return (types ?? ['opened', 'synchronize', 'reopened']).map((action) => ({
            event_name: event,
            ref: `refs/pull/${N}/merge`,
            event: pull(action),
          }));
        case 'pull_request_review_comment':
          return [
            { event_name: event, ref: `refs/pull/${N}/merge`, event: { ...pull('created'), comment: {} } },
          ];
        case 'issue_comment':
          return [
            {
              event_name: event,
              ref: 'refs/heads/main',
              event: {
                action: 'created',
                issue: { number: N, pull_request: {} },
                comment: { body: '/docs' },
              },
            },
          ];
        case 'push':
          // The push of the pull request's merge: its payload names no pull request.
          return [
            {
              event_name: event,
              ref: 'refs/heads/main',
              event: {
                ref: 'refs/heads/main',
                head_commit: { message: `Merge pull request #${N} from acme/topic` },
              },
            },
          ];
        default:
          return [];
      }
    };
    let threads = 0;
    const problems: string[] = [];
    for (const { name, text } of blocks) {
      const doc = parsed(text) as Node;
      if (!isNode(doc.jobs) || !isNode(doc.on)) continue;
      for (const [id, job] of Object.entries(doc.jobs)) {
        if (
          !isNode(job) ||
          !ours(JSON.stringify(job)).some((step) => isNode(step.with) && step.with.thread === true)
        )
          continue;
        threads++;
        const group = isNode(job.concurrency) ? job.concurrency.group : undefined;
        if (typeof group !== 'string') {
          problems.push(`${name}: job ${id} keeps a thread without a concurrency group`);
          continue;
        }
        const runs = Object.entries(doc.on).flatMap(([event, config]) => runsOf(event, config));
        const groups = new Map<string, string[]>();
        for (const run of runs) {
          const key = evaluate(group, { ...run, repository: 'acme/app' });
          groups.set(key, [
            ...(groups.get(key) ?? []),
            `${String(run.event_name)} ${String((run.event as { action?: string }).action ?? '')}`.trim(),
          ]);
        }
        if (groups.size !== 1)
          problems.push(
            `${name}: job ${id}'s runs of one pull request fall in ${JSON.stringify(Object.fromEntries(groups))}`,
          );
      }
    }
    expect(problems).toEqual([]);
    expect(threads).toBeGreaterThanOrEqual(2);
  });

  it('gives every auto-merging step a commit status, from which a re-run resumes its job', () => {
    const problems: string[] = [];
    let merging = 0;
    for (const { name, text } of blocks) {
      const doc = parsed(text) as Node;
      for (const step of ours(text)) {
        if (!isNode(step.with) || !step.with.autoMerge) continue;
        merging++;
        if (step.with.status !== true) problems.push(`${name}: autoMerge without status: true`);
        const permissions = isNode(doc.permissions) ? doc.permissions : {};
        if (permissions.statuses !== 'write') problems.push(`${name}: no statuses: write`);
      }
    }
    expect(problems).toEqual([]);
    expect(merging).toBeGreaterThanOrEqual(1);
  });
});

/** What the runner puts in place of the recipes' expressions (the service is the emulator). */
const RECIPE_VALUES: Record<string, string> = {
  '${{ vars.DOCS_PROJECT_ID }}': 'proj_docs',
  '${{ secrets.DOCS_API_KEY }}': KEY,
  '${{ steps.docs-token.outputs.token }}': DOCS_TOKEN,
};

/** The first workflow after `heading` in docs/examples.md: its name, its first job's name and the action's step. */
function recipe(heading: string) {
  const markdown = readFileSync(join(ROOT, 'docs/examples.md'), 'utf8');
  const section = markdown.split(heading)[1] ?? '';
  const workflow = parse(/^```yaml\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? '') as {
    name: string;
    jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }>;
  };
  const [jobName = '', job] = Object.entries(workflow.jobs)[0] ?? [];
  const step = job?.steps.find((s) => s.uses?.startsWith('<owner>/<repo>'));
  return { workflow, jobName, step };
}

describe('the auto-merge recipe, run as written', () => {
  const emulator = emulators({ activePolls: 3 });
  const github = gitHubEmulators();

  it('survives a re-run after a timeout: one job, one docs pull request, merged', async () => {
    const { workflow, jobName, step } = recipe('### Merge the docs PR when it is green');
    const gh = await github();
    const { docsPr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const written = Object.fromEntries(
      Object.entries(step?.with ?? {}).map(([input, value]) => {
        const text = String(value);
        if (!text.includes('${{')) return [input, text];
        if (!(text in RECIPE_VALUES)) throw new Error(`the test has no value for ${text}`);
        return [input, RECIPE_VALUES[text] ?? ''];
      }),
    );
    const attempt = (n: number, timeout: string) =>
      run({
        // The job outlasts the first attempt's timeout (the recipe's 30m, here 2s).
        inputs: { ...written, baseUrl: service.url, pollInterval: '1s', timeout },
        env: {
          ...gitHubEnv(gh),
          GITHUB_RUN_ATTEMPT: String(n),
          GITHUB_WORKFLOW: workflow.name,
          GITHUB_JOB: jobName,
        },
        event: { name: 'schedule', payload: { schedule: '0 7 * * 1' } },
      });
    const first = await attempt(1, '2s');
    expect(first.code).toBe(1);
    expect(first.outputs.status).toBe('active');
    expect(docsPr.autoMerge).toBeUndefined();
    const again = await attempt(2, '40s');
    expect(again.code).toBe(0);
    expect(again.outputs).toMatchObject({ mode: 'resumed', jobId: first.outputs.jobId, status: 'completed' });
    expect(service.count('create')).toBe(1);
    expect(docsPr.autoMerge).toEqual({ method: 'SQUASH', by: 'docs-app[bot]' });
  });
});

describe('the thread recipe, run as written', () => {
  const emulator = emulators({ activePolls: 0 });
  const github = gitHubEmulators();

  it("sends nothing on a push (at-merge: a success status names the job) and tells the pull request's merge (closed, merged) to the thread's job, with every push since it last looked", async () => {
    const { workflow, jobName, step } = recipe('\n## Docs that follow the pull request');
    const gh = await github();
    const { pr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const [first, second] = ['1', '2'].map((digit) => digit.repeat(40)) as [string, string];
    gh.comparison(APP, `${first}...${second}`, {
      commits: [],
      files: [{ filename: 'src/cli.ts', status: 'modified', additions: 1, deletions: 0 }],
    });
    // The prompt's one expression, as the runner evaluates it for the event.
    const prompt = /^\$\{\{ github\.event\.action == 'closed' && '([^']*)' \|\| '([^']*)' \}\}$/;
    const inputs = (action: string) =>
      Object.fromEntries(
        Object.entries(step?.with ?? {}).map(([input, value]) => {
          const text = String(value);
          const chosen = prompt.exec(text);
          if (chosen) return [input, action === 'closed' ? chosen[1] : chosen[2]];
          if (!text.includes('${{')) return [input, text];
          if (!(text in RECIPE_VALUES)) throw new Error(`the test has no value for ${text}`);
          return [input, RECIPE_VALUES[text] ?? ''];
        }),
      );
    const runOn = (head: string, action: string) => {
      const event = pushTo(pr, head, action);
      const merged = action === 'closed';
      return run({
        inputs: { ...inputs(action), baseUrl: service.url, pollInterval: '1s', timeout: '40s' },
        env: { ...gitHubEnv(gh), GITHUB_WORKFLOW: workflow.name, GITHUB_JOB: jobName },
        event: {
          ...event,
          payload: { ...event.payload, pull_request: { ...event.payload.pull_request, merged } },
        },
      });
    };
    const opened = await runOn(first, 'opened');
    expect(opened.outputs.mode).toBe('created');
    const pushed = await runOn(second, 'synchronize');
    expect(pushed.outputs).toMatchObject({ mode: 'skipped', uses: '0' });
    expect(service.count('message')).toBe(0);
    expect(gh.statuses(APP, second)[0]).toMatchObject({
      state: 'success',
      description: `Docs follow at the merge: job ${opened.outputs.jobId} · run 4242`,
    });
    const merge = await runOn(second, 'closed');
    expect(merge.code).toBe(0);
    expect(warnings(merge)).toEqual([]);
    expect(merge.outputs).toMatchObject({
      mode: 'followed-up',
      jobId: opened.outputs.jobId,
      prLink: docsLink,
    });
    expect(service.count('create')).toBe(1);
    const told = service.requests.filter((r) => r.route === 'message').at(-1)?.json as { prompt: string };
    expect(told.prompt).toMatch(/^The pull request was merged: make its docs ready to merge\./);
    expect(told.prompt).toContain('src/cli.ts');
    expect(merge.outputs.uses).toBe('1');
    expect(gh.statuses(APP, second)[0]?.description).toBe(
      `Completed: job ${opened.outputs.jobId} · run 4242`,
    );
  });
});
