// action.yml is the contract workflows are written against (docs/design.md §2, §4).
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { actionYml, ROOT } from '../__fixtures__/runner.js';
import { OPTIONAL_DEFAULTS } from '../src/inputs.js';
import { VERSION } from '../src/version.js';

describe('action.yml', () => {
  it('declares exactly the inputs workflows are written against, each described, with string defaults', () => {
    expect(Object.keys(actionYml.inputs)).toEqual([
      'prompt',
      'projectId',
      'apiKey',
      'baseUrl',
      'wait',
      'timeout',
      'pollInterval',
      'jobId',
      'promptFile',
      'context',
      'contextLimit',
      'comment',
      'labels',
      'reviewers',
      'githubToken',
      'docsToken',
      'trigger',
      'allowedActors',
      'thread',
      'status',
    ]);
    for (const input of Object.values(actionYml.inputs)) expect(input.description.length).toBeGreaterThan(20);
    const defaults = Object.values(actionYml.inputs).filter((input) => 'default' in input);
    for (const input of defaults) expect(typeof input.default).toBe('string');
    expect(actionYml.inputs.wait?.default).toBe('true');
    expect(actionYml.inputs.timeout?.default).toBe('30m');
    expect(actionYml.inputs.pollInterval?.default).toBe('10s');
    // No default: a key is never sent to a host the workflow did not name.
    expect('default' in (actionYml.inputs.apiKey ?? {})).toBe(false);
    expect('default' in (actionYml.inputs.baseUrl ?? {})).toBe(false);
    for (const [name, value] of Object.entries(OPTIONAL_DEFAULTS))
      expect(actionYml.inputs[name]?.default).toBe(value);
    // The GitHub side is off unless asked for, and uses the workflow's own token by default.
    expect(actionYml.inputs.comment?.default).toBe('false');
    expect(actionYml.inputs.githubToken?.default).toBe('${{ github.token }}');
    expect('default' in (actionYml.inputs.docsToken ?? {})).toBe(false);
  });

  it('declares the outputs workflows read (docs/design.md §4)', () => {
    expect(Object.keys(actionYml.outputs)).toEqual([
      'jobId',
      'status',
      'mode',
      'prLink',
      'job',
      'commentUrl',
    ]);
  });

  it('runs dist/index.js on Node 24', () => {
    expect(actionYml.runs).toEqual({ using: 'node24', main: 'dist/index.js' });
  });

  it('sends the version of package.json in the User-Agent', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});

describe('README', () => {
  // A workflow that does not parse is refused by GitHub as a whole: every example must be YAML.
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');

  it('has YAML examples', () => {
    expect(blocks.length).toBeGreaterThan(5);
  });

  it.each(blocks.map((block, i) => [i + 1, block]))('example %d is valid YAML', (_i, block) => {
    expect(() => {
      parse(block as string);
    }).not.toThrow();
  });

  it('uses only inputs that action.yml declares, in the steps that use this action', () => {
    const used = new Set<string>();
    for (const block of blocks) {
      const doc = parse(block) as unknown;
      JSON.stringify(doc, (_key, value: unknown) => {
        const step = value as { uses?: unknown; with?: unknown } | null;
        if (step && typeof step.uses === 'string' && step.uses.startsWith('<owner>/<repo>@') && step.with) {
          Object.keys(step.with).forEach((k) => used.add(k));
        }
        return value;
      });
    }
    expect(used.has('docsToken')).toBe(true);
    for (const name of used) expect(Object.keys(actionYml.inputs)).toContain(name);
  });
});
