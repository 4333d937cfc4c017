import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';

/**
 * Which files the agent may touch (DESIGN.md §3), enforced in code for every tool call and again
 * on the final diff: documentation pages, navigation/config files and images, inside the docs
 * root, never in a hidden folder, never through a symlink.
 */
const WRITABLE_EXTENSIONS = new Set([
  '.md',
  '.mdx',
  '.png',
  '.jpg',
  '.jpeg',
  '.gif',
  '.svg',
  '.webp',
  '.avif',
  '.ico',
]);
const WRITABLE_NAMES = new Set(['docs.json', 'mint.json', 'mkdocs.yml', 'mkdocs.yaml']);
const SIDEBARS = /^sidebars\.(js|cjs|mjs|ts|json)$/;

export class GuardError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GuardError';
  }
}

/** Why this docs-root-relative path may not be written, or null when it may. */
export function whyNotWritable(relPath: string): string | null {
  const parts = relPath.split('/');
  if (parts.some((p) => p.startsWith('.'))) return `${relPath} is in a hidden folder or is a hidden file`;
  if (parts.includes('node_modules')) return `${relPath} is inside node_modules`;
  const base = parts[parts.length - 1]!;
  if (WRITABLE_NAMES.has(base) || SIDEBARS.test(base)) return null;
  if (WRITABLE_EXTENSIONS.has(path.extname(base).toLowerCase())) return null;
  return `${relPath} is not a documentation file (only .md, .mdx, images, docs.json, mint.json, mkdocs.yml and sidebars.* may change)`;
}

export class PathGuard {
  private constructor(
    /** The worktree: everything else is outside. */
    readonly repoRoot: string,
    /** Absolute, real (symlink-free) docs root inside the worktree. */
    readonly docsRoot: string,
  ) {}

  static async create(repoRoot: string, docsRoot: string): Promise<PathGuard> {
    const realRepo = await realpath(repoRoot);
    const real = await realpath(path.resolve(realRepo, docsRoot)).catch(() => {
      throw new GuardError(`the docs root "${docsRoot}" does not exist in the repository`);
    });
    if (real !== realRepo && !real.startsWith(realRepo + path.sep)) {
      throw new GuardError(`the docs root "${docsRoot}" points outside the repository`);
    }
    return new PathGuard(realRepo, real);
  }

  /** Docs-root-relative, forward-slash form of an absolute path inside the root. */
  relative(abs: string): string {
    return path.relative(this.docsRoot, abs).split(path.sep).join('/');
  }

  /** The repository-relative form (what git shows) of a docs-root-relative path. */
  repoPath(rel: string): string {
    return path.relative(this.repoRoot, path.join(this.docsRoot, rel)).split(path.sep).join('/');
  }

  /**
   * Resolves a model-supplied path. Refuses absolute paths, `..` escapes, and any existing
   * component that is a symlink resolving outside the docs root.
   */
  async resolve(input: string, purpose: 'read' | 'write'): Promise<{ abs: string; rel: string }> {
    if (typeof input !== 'string' || input.trim() === '') throw new GuardError('path must not be empty');
    if (input.includes('\0')) throw new GuardError('path must not contain NUL');
    if (path.isAbsolute(input) || /^[a-zA-Z]:[\\/]/.test(input)) {
      throw new GuardError(`"${input}" is absolute; paths are relative to the docs root`);
    }
    const abs = path.resolve(this.docsRoot, input);
    if (abs !== this.docsRoot && !abs.startsWith(this.docsRoot + path.sep)) {
      throw new GuardError(`"${input}" is outside the docs root`);
    }
    // Walk down from the root: a symlink anywhere on the way could lead outside.
    let current = this.docsRoot;
    for (const part of path.relative(this.docsRoot, abs).split(path.sep).filter(Boolean)) {
      current = path.join(current, part);
      const st = await lstat(current).catch(() => null);
      if (!st) break;
      if (st.isSymbolicLink()) {
        if (purpose === 'write')
          throw new GuardError(`"${input}" goes through a symbolic link; links are not writable`);
        const target = await realpath(current).catch(() => null);
        if (target === null || (target !== this.docsRoot && !target.startsWith(this.docsRoot + path.sep))) {
          throw new GuardError(`"${input}" goes through a symbolic link that leads outside the docs root`);
        }
      }
    }
    const rel = this.relative(abs);
    if (purpose === 'write') {
      if (rel === '') throw new GuardError('the docs root itself is not a file');
      const why = whyNotWritable(rel);
      if (why) throw new GuardError(`refused: ${why}`);
    }
    return { abs, rel };
  }
}
