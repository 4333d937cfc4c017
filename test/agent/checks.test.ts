import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFramework } from '../../src/agent/checks/framework.js';
import { linkTarget, validateChanges } from '../../src/agent/checks/validate.js';
import { PathGuard } from '../../src/agent/guardrails.js';
import { FIXTURE, git, repoFrom } from '../support/agent.js';
import { makeDocsRepo } from '../support/repos.js';

async function check(dir: string, docsRoot = '.') {
  const base = git(dir, 'rev-parse', 'HEAD').trim();
  return async () => {
    const guard = await PathGuard.create(dir, docsRoot);
    return validateChanges({ dir, guard, framework: detectFramework(guard.docsRoot), baseSha: base });
  };
}

const write = (dir: string, rel: string, text: string) => {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(path.join(dir, rel), text);
};

describe('checks', () => {
  it('resolves internal links the way the sites do', () => {
    expect(linkTarget('guides/start.mdx', '/quickstart')).toBe('quickstart');
    expect(linkTarget('guides/start.mdx', '../quickstart#install')).toBe('quickstart');
    expect(linkTarget('guides/start.md', 'other.md?x=1')).toBe('guides/other.md');
    expect(linkTarget('a.md', 'https://example.com')).toBeNull();
    expect(linkTarget('a.md', 'mailto:x@example.com')).toBeNull();
    expect(linkTarget('a.md', '#section')).toBeNull();
  });

  it('reports MDX that does not compile and frontmatter that is not YAML, with lines', async () => {
    const dir = repoFrom(FIXTURE);
    const run = await check(dir);
    write(dir, 'quickstart.mdx', '---\ntitle: "Quickstart"\n---\n\n<Card title="x">\n\nunclosed\n');
    write(dir, 'guides/start.mdx', '---\ntitle: [unclosed\n---\n\nText.\n');
    const problems = await run();
    expect(problems.find((p) => p.file === 'quickstart.mdx')!.message).toMatch(/^MDX does not compile/);
    expect(problems.find((p) => p.file === 'guides/start.mdx')!.message).toMatch(
      /^frontmatter is not valid YAML/,
    );
  });

  it('reports links and navigation entries left pointing at a moved page', async () => {
    const dir = repoFrom(FIXTURE);
    const run = await check(dir);
    renameSync(path.join(dir, 'quickstart.mdx'), path.join(dir, 'getting-started.mdx'));
    const problems = await run();
    const text = problems.map((p) => `${p.file}: ${p.message}`);
    expect(text).toContain('docs.json: navigation still lists removed page "quickstart"');
    expect(text).toContain('getting-started.mdx: new page is not in the navigation (docs.json)');
    expect(text).toContain('index.mdx: broken link: /quickstart (no such page or file)');
    expect(text).toContain('guides/start.mdx: broken link: /quickstart (no such page or file)');
  });

  it('reports a new navigation entry with no page, and nothing when the change is clean', async () => {
    const dir = repoFrom(FIXTURE);
    const run = await check(dir);
    write(dir, 'guides/more.mdx', '---\ntitle: More\n---\n\nSee [start](/guides/start).\n');
    const nav = JSON.parse(readFileSync(path.join(dir, 'docs.json'), 'utf8'));
    nav.navigation.groups[1].pages.push('guides/more');
    writeFileSync(path.join(dir, 'docs.json'), JSON.stringify(nav, null, 2));
    expect(await run()).toEqual([]);
    nav.navigation.groups[1].pages.push('guides/ghost');
    writeFileSync(path.join(dir, 'docs.json'), JSON.stringify(nav, null, 2));
    expect(await run()).toEqual([
      { file: 'docs.json', message: 'navigation lists "guides/ghost", which is not a page' },
    ]);
  });

  it('reads MkDocs navigation (with Python tags) and mint.json', async () => {
    const mk = makeDocsRepo();
    write(
      mk,
      'mkdocs.yml',
      'site_name: Acme\ndocs_dir: .\nmarkdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\nnav:\n  - Home: index.md\n  - Guides:\n    - guides/start.md\n',
    );
    git(mk, 'add', '-A');
    git(mk, 'commit', '-qm', 'mkdocs');
    const runMk = await check(mk);
    write(mk, 'guides/new.md', '# New\n\nBack to [start](start.md) and [nowhere](missing.md).\n');
    expect(await runMk()).toEqual([
      { file: 'guides/new.md', line: 3, message: 'broken link: missing.md (no such page or file)' },
      { file: 'guides/new.md', message: 'new page is not in the navigation (mkdocs.yml)' },
    ]);

    // Without `nav`, MkDocs builds the navigation itself: a new page cannot be missing from it.
    const auto = makeDocsRepo();
    write(auto, 'mkdocs.yml', 'site_name: Acme\ndocs_dir: .\n');
    git(auto, 'add', '-A');
    git(auto, 'commit', '-qm', 'mkdocs');
    const runAuto = await check(auto);
    write(auto, 'guides/auto.md', '# Auto\n');
    expect(await runAuto()).toEqual([]);

    const mint = makeDocsRepo();
    write(
      mint,
      'mint.json',
      JSON.stringify({ name: 'Acme', navigation: [{ group: 'Home', pages: ['index', 'guides/start'] }] }),
    );
    git(mint, 'add', '-A');
    git(mint, 'commit', '-qm', 'mint');
    const runMint = await check(mint);
    write(
      mint,
      'mint.json',
      JSON.stringify({
        name: 'Acme',
        navigation: [{ group: 'Home', pages: ['index', 'guides/start', 'nope'] }],
      }),
    );
    expect(await runMint()).toEqual([
      { file: 'mint.json', message: 'navigation lists "nope", which is not a page' },
    ]);
  });

  it('detects the framework', () => {
    expect(detectFramework(FIXTURE).kind).toBe('mintlify');
    expect(detectFramework(makeDocsRepo()).kind).toBe('markdown');
  });
});
