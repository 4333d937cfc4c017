import { readFileSync } from 'node:fs';

/**
 * Prompts and tool descriptions live in .txt files next to the code that uses them (copied into
 * dist/ by the build), so they can be read and reviewed as text.
 */
export function loadText(relative: string, from: string): string {
  return readFileSync(new URL(relative, from), 'utf8').trim();
}
