// A git ref in the words a notice uses: what a person reads, never the raw ref where a branch's or
// a tag's name says it.
import { label as word } from './untrusted.js';

/** A ref as a person reads it: `the branch main`, `the tag v1.2.0`, else the ref itself. */
export function refWords(ref: unknown): string {
  const name = typeof ref === 'string' ? ref : '';
  const branch = /^refs\/heads\/(.+)$/.exec(name);
  if (branch) return `the branch ${word(branch[1] ?? '')}`;
  const tag = /^refs\/tags\/(.+)$/.exec(name);
  if (tag) return `the tag ${word(tag[1] ?? '')}`;
  return name ? `the ref ${word(name)}` : 'its ref';
}
