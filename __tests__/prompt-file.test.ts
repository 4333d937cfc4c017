import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promptFrom as prompt, refusal } from '../__fixtures__/prompt-file.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A workspace with a sibling directory outside it, which holds a secret. */
function setUp(files: Record<string, string | Buffer> = {}): { workspace: string; outside: string } {
  const root = mkdtempSync(join(tmpdir(), 'prompt-file-'));
  roots.push(root);
  const workspace = join(root, 'workspace');
  const outside = join(root, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.md'), 'TOP SECRET of the runner');
  writeFileSync(join(root, 'outside.md'), 'TOP SECRET next to the workspace');
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(workspace, name, '..'), { recursive: true });
    writeFileSync(join(workspace, name), content);
  }
  return { workspace, outside };
}

const OUT_BY_LINK =
  'which leads outside the workspace (a symbolic link to a path outside GITHUB_WORKSPACE); the prompt is read only from files in the workspace.';

describe('promptFile reads only the workspace', () => {
  it('refuses a link to /proc/self/environ, and shows neither the target nor the file', () => {
    const { workspace } = setUp();
    symlinkSync('/proc/self/environ', join(workspace, 'prompt.md'));
    const message = refusal('prompt.md', workspace);
    expect(message).toBe(`Input "promptFile" names "prompt.md", ${OUT_BY_LINK}`);
    expect(message).not.toMatch(/proc|environ|PATH=/);
  });

  it('refuses a link to a file outside the workspace without naming where it leads', () => {
    const { workspace, outside } = setUp();
    mkdirSync(join(workspace, '.github'));
    symlinkSync(join(outside, 'secret.md'), join(workspace, '.github', 'prompt.md'));
    const message = refusal('.github/prompt.md', workspace);
    expect(message).toBe(`Input "promptFile" names ".github/prompt.md", ${OUT_BY_LINK}`);
    expect(message).not.toMatch(/outside\/|secret/);
  });

  it('refuses a relative link that climbs out (../../outside/secret.md)', () => {
    const { workspace } = setUp();
    mkdirSync(join(workspace, 'docs'));
    symlinkSync('../../outside/secret.md', join(workspace, 'docs', 'prompt.md'));
    expect(refusal('docs/prompt.md', workspace)).toBe(
      `Input "promptFile" names "docs/prompt.md", ${OUT_BY_LINK}`,
    );
  });

  it('refuses a file under a linked directory that leads out', () => {
    const { workspace, outside } = setUp();
    symlinkSync(outside, join(workspace, 'prompts'));
    expect(refusal('prompts/secret.md', workspace)).toBe(
      `Input "promptFile" names "prompts/secret.md", ${OUT_BY_LINK}`,
    );
  });

  it('refuses an absolute path inside the workspace when it is a link that leads out', () => {
    const { workspace, outside } = setUp();
    symlinkSync(join(outside, 'secret.md'), join(workspace, 'prompt.md'));
    const name = join(workspace, 'prompt.md');
    expect(refusal(name, workspace)).toBe(`Input "promptFile" names "${name}", ${OUT_BY_LINK}`);
  });

  it('refuses a relative path out of the workspace (../outside.md)', () => {
    const { workspace } = setUp();
    expect(refusal('../outside.md', workspace)).toBe(
      'Input "promptFile" names "../outside.md", which leads outside the workspace (a path outside GITHUB_WORKSPACE); the prompt is read only from files in the workspace.',
    );
  });

  it('follows a link that stays inside the workspace', () => {
    const { workspace } = setUp({ 'prompts-dir/prompt.md': '  Refresh the docs\n' });
    mkdirSync(join(workspace, '.github'));
    symlinkSync('../prompts-dir/prompt.md', join(workspace, '.github', 'prompt.md'));
    symlinkSync(join(workspace, 'prompts-dir'), join(workspace, 'prompts'));
    expect(prompt('.github/prompt.md', workspace)).toBe('Refresh the docs');
    expect(prompt('prompts/prompt.md', workspace)).toBe('Refresh the docs');
  });

  it('reads a workspace that is itself reached through a link', () => {
    const { workspace } = setUp({ 'p.md': 'Refresh the docs' });
    const linked = `${workspace}-link`;
    symlinkSync(workspace, linked);
    expect(prompt('p.md', linked)).toBe('Refresh the docs');
    expect(prompt(join(linked, 'p.md'), linked)).toBe('Refresh the docs');
    expect(prompt(join(workspace, 'p.md'), linked)).toBe('Refresh the docs');
  });

  it('takes an absolute path outside the workspace as the workflow wrote it', () => {
    const { workspace, outside } = setUp();
    writeFileSync(join(outside, 'generated.md'), 'Written by an earlier step\n');
    expect(prompt(join(outside, 'generated.md'), workspace)).toBe('Written by an earlier step');
  });

  it('says a dangling link does not exist', () => {
    const { workspace } = setUp();
    symlinkSync('nowhere.md', join(workspace, 'prompt.md'));
    expect(refusal('prompt.md', workspace)).toContain(
      'Input "promptFile" names "prompt.md", which does not exist in the workspace',
    );
  });
});

describe('promptFile reads only regular files', () => {
  it('refuses /proc/self/environ named as an absolute path', () => {
    const { workspace } = setUp();
    expect(refusal('/proc/self/environ', workspace)).toBe(
      'Input "promptFile" names "/proc/self/environ", which is a system file (/proc); the prompt is read only from regular files.',
    );
  });

  it('refuses /dev/null', () => {
    const { workspace } = setUp();
    expect(refusal('/dev/null', workspace)).toBe(
      'Input "promptFile" names "/dev/null", which is a system file (/dev); the prompt is read only from regular files.',
    );
  });

  it('refuses a directory with the message it always had', () => {
    const { workspace } = setUp({ 'prompts/a.md': 'x' });
    expect(refusal('prompts', workspace)).toBe('Input "promptFile" names "prompts", which is not a file.');
  });
});

describe('promptFile holds UTF-8 text', () => {
  const SAVE = 'the prompt is sent as UTF-8; save it as UTF-8.';

  it('refuses bytes that are not UTF-8 (Latin-1)', () => {
    const { workspace } = setUp({ 'p.md': Buffer.from('Update the café page', 'latin1') });
    expect(refusal('p.md', workspace)).toBe(
      `Input "promptFile" names "p.md", which is not UTF-8 text: ${SAVE}`,
    );
  });

  it('refuses NUL bytes', () => {
    const { workspace } = setUp({ 'p.md': Buffer.from('Update\u0000the docs', 'utf8') });
    expect(refusal('p.md', workspace)).toBe(
      `Input "promptFile" names "p.md", which holds NUL bytes, so it is not UTF-8 text (perhaps UTF-16, or a binary file): ${SAVE}`,
    );
  });

  it('says UTF-16 when the file starts with its byte-order mark', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Update the docs', 'utf16le')]);
    const { workspace } = setUp({ 'p.md': utf16 });
    expect(refusal('p.md', workspace)).toBe(
      `Input "promptFile" names "p.md", which looks like UTF-16 text (it starts with a UTF-16 byte-order mark), not UTF-8: ${SAVE}`,
    );
  });

  it('drops a UTF-8 byte-order mark', () => {
    const { workspace } = setUp({ 'p.md': Buffer.from('\uFEFFUpdate the docs', 'utf8') });
    expect(prompt('p.md', workspace)).toBe('Update the docs');
  });
});

describe('promptFile is at most 1 MiB', () => {
  it('reads 1 MiB and refuses one byte more', () => {
    const { workspace } = setUp({
      'max.md': 'x'.repeat(1024 * 1024),
      'big.md': 'x'.repeat(1024 * 1024 + 1),
    });
    expect(prompt('max.md', workspace)).toHaveLength(1024 * 1024);
    expect(refusal('big.md', workspace)).toBe(
      'Input "promptFile" names "big.md", which is 1048577 bytes; at most 1 MiB is sent as a prompt.',
    );
  });
});
