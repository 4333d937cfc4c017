import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A one-page docs repository: projects need a repository that exists. */
export function makeBenchRepo(dir: string): string {
  const repo = path.join(dir, 'docs');
  mkdirSync(repo, { recursive: true });
  writeFileSync(path.join(repo, 'index.md'), '# Bench\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-qm', 'init');
  return repo;
}
