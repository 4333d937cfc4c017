import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface SecretKeySource {
  key: string;
  /** Where it came from, for one log line at start-up (never the key itself). */
  origin: 'environment' | 'file' | 'generated';
  file?: string;
}

/**
 * Returns REDLINE_SECRET_KEY, or the key kept in the data directory, generating it on first use
 * so the embedded default needs no set-up. The file is created exclusively with mode 0600, so two
 * processes starting at once agree on one key.
 */
export function resolveSecretKey(configured: string | null, dataDir: string): SecretKeySource {
  if (configured !== null) return { key: configured, origin: 'environment' };
  const file = path.join(dataDir, 'secret.key');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, randomBytes(48).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
    return { key: readKey(file), origin: 'generated', file };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { key: readKey(file), origin: 'file', file };
  }
}

function readKey(file: string): string {
  const key = readFileSync(file, 'utf8').trim();
  if (key.length < 32) {
    throw new Error(
      `The secret key in ${file} is shorter than 32 characters; delete it or set REDLINE_SECRET_KEY.`,
    );
  }
  return key;
}
