// action.yml is the contract workflows are written against (docs/design.md §2, §4).
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { actionYml, ROOT } from '../__fixtures__/runner.js';
import { OPTIONAL_DEFAULTS, readInputs } from '../src/inputs.js';

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
    for (const file of files) {
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
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(23_000);
  });
});
