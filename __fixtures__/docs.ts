/** Where each generated table lives and what it is made from (scripts/readme-tables.mjs). */
export interface DocsPaths {
  readme: string;
  action: string;
  development: string;
  bench: string;
  dist: string;
}

type Generated = 'readme' | 'development';

/** `npm run docs`'s script, loaded in process: plain JavaScript, so typed here. */
export interface DocsScript {
  /** One line for each generated table that differs from its sources; empty when none does. */
  check: (overrides?: Partial<DocsPaths>, only?: Generated[]) => string[];
  sizeRows: (dist: string) => [string, string, string, string][];
}

export async function docsScript(): Promise<DocsScript> {
  // A specifier TypeScript does not resolve: the script has no types of its own.
  const script: string = '../scripts/readme-tables.mjs';
  return (await import(script)) as DocsScript;
}
