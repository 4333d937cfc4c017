import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  type Stats,
} from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { quote } from '../core/untrusted.js';

/** The prompt, trimmed; or why the file cannot be the prompt, as one sentence naming the input. */
export type PromptFileRead = { text: string } | { problem: string };

const MAX_PROMPT_FILE_BYTES = 1024 * 1024;

// Kernel interfaces: they report a size of 0 whatever they hold (so no size check stops them), and
// some of them are the runner's secrets (/proc/self/environ) or never end (/dev/zero).
const SYSTEM_ROOTS = ['/proc', '/sys', '/dev'];

const SAVE_AS_UTF8 = 'the prompt is sent as UTF-8; save it as UTF-8.';

/** Within `root` (or `root` itself), once both are absolute and normalized. */
function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function kind(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  return 'an unknown kind of file';
}

function errorCode(error: unknown): string {
  return (error as { code?: string } | null)?.code ?? 'error';
}

/**
 * Reads the prompt kept in a file. A relative name, and an absolute one inside the workspace, must
 * stay inside the workspace once every symbolic link is followed: a checked-out branch (a fork's,
 * under pull_request_target) decides what its files link to, and a link to /proc/self/environ
 * would send the runner's secrets as the prompt. An absolute path outside the workspace was
 * written by the workflow itself, so it is taken as is; whatever the path, only a regular file
 * outside the kernel's trees is read.
 */
export function readPromptFile(name: string, workspace: string): PromptFileRead {
  const which = (reason: string) => ({
    problem: `Input "promptFile" names ${quote(name, 200)}, which ${reason}`,
  });
  const unreadable = (error: unknown) => which(`could not be read (${errorCode(error)}).`);
  const missing = () =>
    which(
      'does not exist in the workspace: check the path, and that the job checks out the repository (actions/checkout) first.',
    );

  const path = resolve(workspace, name);
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    const code = errorCode(error);
    return code === 'ENOENT' || code === 'ENOTDIR' ? missing() : unreadable(error);
  }

  const givenWorkspace = resolve(workspace);
  let realWorkspace: string;
  try {
    realWorkspace = realpathSync(givenWorkspace);
  } catch {
    realWorkspace = givenWorkspace;
  }
  const pathInWorkspace = isWithin(givenWorkspace, path) || isWithin(realWorkspace, path);
  // `${{ github.workspace }}/prompt.md` is absolute, yet names a checked-out file like any other.
  if ((!isAbsolute(name) || pathInWorkspace) && !isWithin(realWorkspace, real)) {
    // Where a link leads is not shown: the path alone can tell what the runner holds.
    const how = pathInWorkspace
      ? 'a symbolic link to a path outside GITHUB_WORKSPACE'
      : 'a path outside GITHUB_WORKSPACE';
    return which(
      `leads outside the workspace (${how}); the prompt is read only from files in the workspace.`,
    );
  }

  const root = SYSTEM_ROOTS.find((dir) => isWithin(dir, real));
  if (root) return which(`is a system file (${root}); the prompt is read only from regular files.`);

  // Before opening: opening a FIFO waits for a writer, forever if none comes.
  let before: Stats;
  try {
    before = lstatSync(real);
  } catch (error) {
    return errorCode(error) === 'ENOENT' ? missing() : unreadable(error);
  }
  if (before.isDirectory()) return which('is not a file.');
  if (!before.isFile()) {
    return which(`is not a regular file (${kind(before)}); the prompt is read only from regular files.`);
  }

  let fd: number;
  try {
    // O_NOFOLLOW and O_NONBLOCK: should the path be swapped for a link or a FIFO after the check
    // above, the open fails or returns at once instead of following it or waiting.
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return missing();
    if (code === 'ELOOP') return which('changed while it was being opened; run the step again.');
    return unreadable(error);
  }
  let bytes: Buffer;
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile() || opened.ino !== before.ino || opened.dev !== before.dev) {
      return which('changed while it was being opened; run the step again.');
    }
    if (opened.size > MAX_PROMPT_FILE_BYTES) {
      return which(`is ${opened.size} bytes; at most 1 MiB is sent as a prompt.`);
    }
    // The size a file reports is not a bound on what reading it returns (it may grow meanwhile),
    // so the cap is on the bytes read: one past it tells that there was more.
    const buffer = Buffer.alloc(MAX_PROMPT_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const count = readSync(fd, buffer, length, buffer.length - length, null);
      if (count === 0) break;
      length += count;
      if (length === buffer.length) break;
    }
    if (length > MAX_PROMPT_FILE_BYTES) {
      return which('is more than 1 MiB; at most 1 MiB is sent as a prompt.');
    }
    bytes = buffer.subarray(0, length);
  } catch (error) {
    return unreadable(error);
  } finally {
    closeSync(fd);
  }

  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return which(
      `looks like UTF-16 text (it starts with a UTF-16 byte-order mark), not UTF-8: ${SAVE_AS_UTF8}`,
    );
  }
  let text: string;
  try {
    // A UTF-8 byte-order mark is dropped by the decoder (ignoreBOM is false).
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return which(`is not UTF-8 text: ${SAVE_AS_UTF8}`);
  }
  // Valid UTF-8, but no text editor writes NUL: this is UTF-16 without a mark, or a binary file.
  if (text.includes('\u0000')) {
    return which(
      `holds NUL bytes, so it is not UTF-8 text (perhaps UTF-16, or a binary file): ${SAVE_AS_UTF8}`,
    );
  }
  text = text.trim();
  if (!text) return which('is empty.');
  return { text };
}
