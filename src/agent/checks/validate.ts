import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { git } from '../../git/git.js';
import { stageAll } from '../../git/workspace.js';
import type { CheckProblem } from '../../jobs/job-view.js';
import type { PathGuard } from '../guardrails.js';
import type { Framework } from './framework.js';
import { readNavigation } from './navigation.js';
import { checkPage } from './pages.js';

export interface ChangedFile {
  status: 'added' | 'modified' | 'deleted';
  /** Repository-relative path. */
  path: string;
  /** For a rename, the old repository-relative path (status is then 'added' for `path`). */
  from?: string;
}

/** Every change in the worktree against `sinceSha`, renames detected; stages the worktree. */
export async function changedFiles(dir: string, sinceSha: string): Promise<ChangedFile[]> {
  await stageAll(dir);
  const out = await git(['diff', '--cached', '--name-status', '-M', '-z', sinceSha], { cwd: dir });
  const parts = out.split('\0').filter((p) => p !== '');
  const files: ChangedFile[] = [];
  for (let i = 0; i < parts.length;) {
    const code = parts[i++]!;
    if (code.startsWith('R') || code.startsWith('C')) {
      const from = parts[i++]!;
      const to = parts[i++]!;
      if (code.startsWith('R')) files.push({ status: 'deleted', path: from });
      files.push({ status: 'added', path: to, ...(code.startsWith('R') ? { from } : {}) });
    } else {
      const p = parts[i++]!;
      files.push({ status: code === 'A' ? 'added' : code === 'D' ? 'deleted' : 'modified', path: p });
    }
  }
  return files;
}

const isPage = (rel: string) => /\.mdx?$/i.test(rel);
// Mintlify snippets and partials are included by pages, not pages themselves.
const isPartial = (rel: string) => rel.startsWith('snippets/') || path.posix.basename(rel).startsWith('_');

/** The docs-root-relative target of an internal link, or null for external links and anchors. */
export function linkTarget(pageRel: string, url: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//') || url.startsWith('#')) return null;
  if (url.includes('{') || url.trim() === '') return null;
  let clean = url.split('#')[0]!.split('?')[0]!;
  try {
    clean = decodeURI(clean);
  } catch {
    /* keep it as written */
  }
  if (clean === '') return null;
  const resolved = clean.startsWith('/')
    ? path.posix.normalize(clean.slice(1))
    : path.posix.join(path.posix.dirname(pageRel), clean);
  return resolved.replace(/\/$/, '');
}

export class DocsIndex {
  constructor(
    private readonly docsRoot: string,
    private readonly redirects: Set<string>,
    /** Docs-root-relative paths git tracks, for files the sparse worktree did not write out. */
    private readonly tracked: Set<string>,
  ) {}

  /** A page or file exists for this target: as written, with .md/.mdx, or as a folder index. */
  exists(target: string): boolean {
    if (target === '' || target === '.') return true;
    if (target.startsWith('..')) return false;
    if (this.redirects.has(target)) return true;
    const candidates = [
      target,
      `${target}.mdx`,
      `${target}.md`,
      `${target}/index.mdx`,
      `${target}/index.md`,
      `${target}/README.md`,
    ];
    return candidates.some((c) => {
      if (this.tracked.has(c)) return true;
      const abs = path.join(this.docsRoot, c);
      return existsSync(abs) && statSync(abs).isFile();
    });
  }
}

const stripExt = (p: string) => p.replace(/\.mdx?$/i, '');

/**
 * Checks the change in the worktree since `baseSha` (DESIGN.md §3): changed pages parse,
 * frontmatter is YAML, internal links resolve, navigation entries point at pages, new pages are
 * in the navigation, and nothing still links to or lists a page the change removed.
 */
export async function validateChanges(o: {
  dir: string;
  guard: PathGuard;
  framework: Framework;
  baseSha: string;
}): Promise<CheckProblem[]> {
  const { guard, framework } = o;
  const problems: CheckProblem[] = [];
  const changes = (await changedFiles(o.dir, o.baseSha))
    .map((c) => ({ ...c, rel: guard.relative(path.join(guard.repoRoot, c.path)) }))
    .filter((c) => !c.rel.startsWith('..'));

  const nav = await readNavigation(guard.docsRoot, framework);
  if (nav.error) problems.push({ file: framework.navigation!, message: nav.error });
  const tracked = (await git(['ls-files', '-z'], { cwd: guard.docsRoot })).split('\0').filter(Boolean);
  const index = new DocsIndex(guard.docsRoot, new Set(nav.redirects), new Set(tracked));

  const linkProblems = async (rel: string, onlyTargets?: Set<string>) => {
    const content = await readFile(path.join(guard.docsRoot, rel), 'utf8');
    const report = await checkPage(rel, content);
    if (!onlyTargets) problems.push(...report.problems);
    for (const link of report.links) {
      const target = linkTarget(rel, link.url);
      if (target === null || index.exists(target)) continue;
      if (onlyTargets && !onlyTargets.has(stripExt(target))) continue;
      problems.push({
        file: rel,
        ...(link.line ? { line: link.line } : {}),
        message: `broken link: ${link.url} (no such page or file)`,
      });
    }
  };

  for (const c of changes) {
    if (c.status !== 'deleted' && isPage(c.rel)) await linkProblems(c.rel);
  }

  if (framework.navigation && nav.explicit) {
    const listed = new Set(nav.pages.map(stripExt));
    const navChanged = changes.some((c) => c.rel === framework.navigation || c.rel.endsWith('.json'));
    if (navChanged) {
      const baseNav = await readBaseNavigation(o.dir, guard, framework, o.baseSha);
      const before = new Set(baseNav.map(stripExt));
      for (const entry of new Set(nav.pages)) {
        if (!before.has(stripExt(entry)) && !index.exists(entry)) {
          problems.push({
            file: framework.navigation,
            message: `navigation lists "${entry}", which is not a page`,
          });
        }
      }
    }
    for (const c of changes) {
      if (c.status === 'added' && isPage(c.rel) && !isPartial(c.rel) && !listed.has(stripExt(c.rel))) {
        problems.push({
          file: c.rel,
          message: `new page is not in the navigation (${framework.navigation})`,
        });
      }
      if (
        c.status === 'deleted' &&
        isPage(c.rel) &&
        listed.has(stripExt(c.rel)) &&
        !index.exists(stripExt(c.rel))
      ) {
        problems.push({
          file: framework.navigation,
          message: `navigation still lists removed page "${stripExt(c.rel)}"`,
        });
      }
    }
  }

  // Pages elsewhere that link to a page this change removed.
  const removed = changes.filter((c) => c.status === 'deleted' && isPage(c.rel)).map((c) => stripExt(c.rel));
  const gone = new Set(removed.filter((r) => !index.exists(r)));
  if (gone.size > 0) {
    const changedPages = new Set(changes.map((c) => c.rel));
    const referrers = new Set<string>();
    for (const slug of gone) {
      const hits = await git(['grep', '-l', '-F', '-e', path.posix.basename(slug), '--', '*.md', '*.mdx'], {
        cwd: guard.docsRoot,
      }).catch(() => '');
      for (const h of hits.split('\n').filter(Boolean)) referrers.add(h);
    }
    for (const r of referrers) if (!changedPages.has(r)) await linkProblems(r, gone);
  }
  return problems;
}

async function readBaseNavigation(
  dir: string,
  guard: PathGuard,
  framework: Framework,
  baseSha: string,
): Promise<string[]> {
  // The base version of the navigation, read through git into a scratch folder so $ref files resolve.
  const scratch = await mkdtemp(path.join(tmpdir(), 'redline-nav-'));
  try {
    const prefix = guard.repoPath('.') === '' ? '' : `${guard.repoPath('.')}/`;
    const listed = await git(['ls-tree', '-r', '--name-only', baseSha, '--', prefix || '.'], { cwd: dir });
    const navFiles = listed
      .split('\n')
      .filter((f) => /\.(json|ya?ml)$/.test(f) && !f.includes('/node_modules/'));
    for (const f of navFiles.slice(0, 200)) {
      const target = path.join(scratch, f.slice(prefix.length));
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, await git(['show', `${baseSha}:${f}`], { cwd: dir }));
    }
    return (await readNavigation(scratch, framework)).pages;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
