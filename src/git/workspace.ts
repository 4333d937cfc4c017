import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { git } from './git.js';

/** Extensions of files a worktree does not write to disk (see `checkout`). */
export const SPARSE_EXCLUDED = [
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'avif',
  'ico',
  'bmp',
  'tiff',
  'mp4',
  'mov',
  'webm',
  'mp3',
  'wav',
  'pdf',
  'zip',
  'gz',
  'woff',
  'woff2',
  'ttf',
  'otf',
  'eot',
];

export function isSparseExcluded(file: string): boolean {
  return SPARSE_EXCLUDED.includes(path.extname(file).slice(1).toLowerCase());
}

/** Stages every change in a worktree, including paths outside the sparse checkout. */
export async function stageAll(dir: string): Promise<void> {
  await git(['add', '--all', '--sparse', '--', '.'], { cwd: dir });
}

export interface GitIdentity {
  name: string;
  email: string;
}

/** A checked-out working tree for one run, on a detached HEAD. */
export interface Worktree {
  dir: string;
  /** The commit the run started from (base ref or the job branch head). */
  startSha: string;
  /** The base ref's commit, which the pull request compares against. */
  baseSha: string;
  /** True when the job branch already existed on the remote (a follow-up or a re-run). */
  branchExisted: boolean;
}

/**
 * Bare mirrors of project repositories under the data directory, fetched before each run, and a
 * worktree per run made from them (cheap: objects are shared, not copied). One fetch per mirror at
 * a time within this process.
 */
export class Workspaces {
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(
    private readonly dataDir: string,
    private readonly identity: GitIdentity,
  ) {}

  mirrorPath(repository: string): string {
    const id = createHash('sha256').update(repository).digest('hex').slice(0, 24);
    return path.join(this.dataDir, 'mirrors', `${id}.git`);
  }

  /**
   * One operation on a mirror at a time: in this process by a promise chain, across processes
   * sharing the data directory (several workers on one machine) by a lock directory next to it.
   */
  async #withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(key) ?? Promise.resolve();
    const locked = async () => {
      await mkdir(path.dirname(key), { recursive: true });
      const release = await lockfile.lock(key, {
        realpath: false,
        lockfilePath: `${key}.lock`,
        // A holder that died leaves a lock nobody refreshes; after this it is taken over.
        stale: 30_000,
        retries: { retries: 600, minTimeout: 50, maxTimeout: 500 },
        // The default throws from a timer and would crash the worker; git's own ref locks still
        // guard the mirror if another process took an expired lock over.
        onCompromised: () => undefined,
      });
      try {
        return await fn();
      } finally {
        await release().catch(() => undefined);
      }
    };
    const next = previous.catch(() => undefined).then(locked);
    this.#locks.set(key, next);
    try {
      return await next;
    } finally {
      if (this.#locks.get(key) === next) this.#locks.delete(key);
    }
  }

  /** Clones the mirror on first use, then fetches every branch; returns its path. */
  async sync(repository: string, o: { signal?: AbortSignal; authorization?: string } = {}): Promise<string> {
    const mirror = this.mirrorPath(repository);
    return this.#withLock(mirror, async () => {
      if (!existsSync(path.join(mirror, 'HEAD'))) {
        await mkdir(path.dirname(mirror), { recursive: true });
        await rm(mirror, { recursive: true, force: true });
        // A bare clone of a path on this machine hard-links the objects: near-instant.
        await git(['clone', '--bare', '--quiet', '--no-tags', '--', repository, mirror], o);
      }
      // Branches only (no tags, no PR refs); a branch deleted upstream goes here too.
      await git(
        ['-C', mirror, 'fetch', '--quiet', '--prune', '--no-tags', 'origin', '+refs/heads/*:refs/heads/*'],
        o,
      );
      return mirror;
    });
  }

  /**
   * A worktree at the job branch if it exists (follow-ups, re-runs), else at the base ref.
   * Removed by `remove`, whatever happened in between.
   */
  async checkout(
    repository: string,
    ref: string,
    branch: string,
    o: { signal?: AbortSignal; authorization?: string; runId?: string } = {},
  ): Promise<Worktree> {
    const mirror = await this.sync(repository, o);
    const baseTip = await this.#resolve(mirror, `refs/heads/${ref}`);
    if (baseTip === null) throw new Error(`the base branch "${ref}" does not exist in the repository`);
    const branchSha = await this.#resolve(mirror, `refs/heads/${branch}`);
    const startSha = branchSha ?? baseTip;
    // The job branch compares against where it forked, not the base branch's tip: commits that
    // landed on the base meanwhile are not the agent's and must not show in its diff or checks.
    const baseSha =
      branchSha === null ? baseTip : (await git(['-C', mirror, 'merge-base', baseTip, branchSha])).trim();
    const root = path.join(this.dataDir, 'worktrees');
    await mkdir(root, { recursive: true });
    // Worktrees are named after their run: what an earlier attempt of this run left behind (its
    // worker was killed) is removed now, not only by the age-based sweep.
    const prefix = `${o.runId ?? 'run'}-`;
    if (o.runId) {
      const stale = (await readdir(root)).filter((n) => n.startsWith(prefix));
      for (const n of stale) await rm(path.join(root, n), { recursive: true, force: true });
      if (stale.length > 0) await this.#withLock(mirror, () => git(['-C', mirror, 'worktree', 'prune']));
    }
    const dir = await mkdtemp(path.join(root, prefix));
    try {
      await this.#populate(mirror, dir, startSha, o.signal);
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      await this.#withLock(mirror, () => git(['-C', mirror, 'worktree', 'prune'])).catch(() => undefined);
      throw err;
    }
    return { dir, startSha, baseSha, branchExisted: branchSha !== null };
  }

  async #populate(mirror: string, dir: string, startSha: string, signal?: AbortSignal): Promise<void> {
    await this.#withLock(mirror, () =>
      git(['-C', mirror, 'worktree', 'add', '--quiet', '--no-checkout', '--detach', '--', dir, startSha], {
        signal,
      }),
    );
    // Binary media stay in the index but are not written out: writing them is most of the cost
    // of a checkout (69 of 86 MB in the Mintlify corpus) and the agent only ever needs to know
    // they exist. git add/mv/rm take --sparse so changes to them still work.
    await git(['sparse-checkout', 'set', '--no-cone', '/*', ...SPARSE_EXCLUDED.map((e) => `!*.${e}`)], {
      cwd: dir,
    });
    // One checkout worker per core: writing the files is the bulk of a warm start.
    await git(['-c', 'checkout.workers=0', 'read-tree', '-mu', 'HEAD'], { cwd: dir, signal });
  }

  async #resolve(mirror: string, ref: string): Promise<string | null> {
    try {
      return (await git(['-C', mirror, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).trim();
    } catch {
      return null;
    }
  }

  /**
   * Removes worktrees left by runs whose worker died, once they are older than any run can be.
   * Age, not ownership, decides: other worker processes may share this data directory.
   */
  async sweep(olderThanMs: number): Promise<number> {
    const root = path.join(this.dataDir, 'worktrees');
    const names = await readdir(root).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      const dir = path.join(root, name);
      const st = await stat(dir).catch(() => null);
      if (st && Date.now() - st.mtimeMs > olderThanMs) {
        await rm(dir, { recursive: true, force: true });
        removed++;
      }
    }
    if (removed > 0) {
      const mirrors = await readdir(path.join(this.dataDir, 'mirrors')).catch(() => [] as string[]);
      for (const m of mirrors)
        await git(['-C', path.join(this.dataDir, 'mirrors', m), 'worktree', 'prune']).catch(() => undefined);
    }
    return removed;
  }

  async remove(repository: string, worktree: Worktree): Promise<void> {
    const mirror = this.mirrorPath(repository);
    await rm(worktree.dir, { recursive: true, force: true });
    await this.#withLock(mirror, () => git(['-C', mirror, 'worktree', 'prune'])).catch(() => undefined);
  }

  /** Stages everything in the worktree and commits it as the bot; null when nothing changed. */
  async commitAll(
    worktree: Worktree,
    message: string,
    trailers: Record<string, string> = {},
  ): Promise<string | null> {
    await stageAll(worktree.dir);
    const status = await git(['status', '--porcelain'], { cwd: worktree.dir });
    if (status.trim() === '') return null;
    await git(
      [
        '-c',
        `user.name=${this.identity.name}`,
        '-c',
        `user.email=${this.identity.email}`,
        'commit',
        '--quiet',
        '--no-verify',
        '-m',
        message,
        ...Object.entries(trailers).flatMap(([k, v]) => ['--trailer', `${k}: ${v}`]),
      ],
      { cwd: worktree.dir },
    );
    return (await git(['rev-parse', 'HEAD'], { cwd: worktree.dir })).trim();
  }

  /** Pushes HEAD to the job branch; `--force-with-lease` so a concurrent change is not overwritten. */
  async push(
    repository: string,
    worktree: Worktree,
    branch: string,
    o: { signal?: AbortSignal; authorization?: string } = {},
  ): Promise<void> {
    const lease = worktree.branchExisted ? worktree.startSha : '';
    await git(
      [
        'push',
        '--quiet',
        '--no-verify',
        `--force-with-lease=refs/heads/${branch}:${lease}`,
        '--',
        repository,
        `HEAD:refs/heads/${branch}`,
      ],
      { cwd: worktree.dir, ...o },
    );
  }
}
