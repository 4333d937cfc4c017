import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A small docs repository made with real git, for projects whose repository must exist. */
export function makeDocsRepo(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'redline-docs-'));
  mkdirSync(path.join(dir, 'guides'));
  writeFileSync(path.join(dir, 'index.md'), '# Welcome\n\nSee [the guide](guides/start.md).\n');
  writeFileSync(path.join(dir, 'guides', 'start.md'), '# Getting started\n\nRun `acme init`.\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '-qm', 'docs');
  return dir;
}
