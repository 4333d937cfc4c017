import { existsSync } from 'node:fs';
import path from 'node:path';

export type FrameworkKind = 'mintlify' | 'mintlify-legacy' | 'docusaurus' | 'mkdocs' | 'markdown';

export interface Framework {
  kind: FrameworkKind;
  /** Human name for the system prompt. */
  name: string;
  /** Navigation file, docs-root-relative, when the framework has one we can read. */
  navigation: string | null;
}

/** Tells the docs framework from the files in the docs root (and the repository root above it). */
export function detectFramework(docsRoot: string): Framework {
  const has = (f: string) => existsSync(path.join(docsRoot, f));
  if (has('docs.json')) return { kind: 'mintlify', name: 'Mintlify (docs.json)', navigation: 'docs.json' };
  if (has('mint.json'))
    return { kind: 'mintlify-legacy', name: 'Mintlify (legacy mint.json)', navigation: 'mint.json' };
  for (const f of ['mkdocs.yml', 'mkdocs.yaml']) {
    if (has(f)) return { kind: 'mkdocs', name: 'MkDocs (mkdocs.yml)', navigation: f };
  }
  for (const f of ['docusaurus.config.js', 'docusaurus.config.ts', 'docusaurus.config.mjs']) {
    // Docusaurus sidebars are code; they are not evaluated, so navigation is not checked.
    if (has(f)) return { kind: 'docusaurus', name: 'Docusaurus', navigation: null };
  }
  return { kind: 'markdown', name: 'plain Markdown', navigation: null };
}
