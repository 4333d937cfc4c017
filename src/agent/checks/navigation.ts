import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import type { Framework } from './framework.js';

export interface Navigation {
  /** False when the site builds its navigation itself (MkDocs without `nav`): nothing to be missing from. */
  explicit: boolean; /** Page entries, docs-root-relative without extension (as Mintlify writes them) or with (MkDocs). */
  pages: string[];
  /** Paths that redirect somewhere, so a link to them is not broken. */
  redirects: string[];
  /** Problems reading the navigation file itself. */
  error: string | null;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const MAX_NAV_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Reads a navigation file that must be a regular file inside `root`: a `$ref` is written by
 * whoever edits docs.json (the model too), so it must not reach other files of the server, a
 * device or a pipe, and its errors must not quote what it read.
 */
async function readInside(root: string, file: string): Promise<string> {
  const real = await realpath(file).catch(() => null);
  const realRoot = await realpath(root);
  if (real === null || (real !== realRoot && !real.startsWith(realRoot + path.sep))) {
    throw new Error(`${path.relative(root, file)} is not a file inside the docs root`);
  }
  const st = await stat(real);
  if (!st.isFile() || st.size > MAX_NAV_FILE_BYTES) {
    throw new Error(`${path.relative(root, file)} is not a regular file under ${MAX_NAV_FILE_BYTES} bytes`);
  }
  return readFile(real, 'utf8');
}

function parseJson(text: string, name: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch (err) {
    // The parser's message quotes the text; say where, not what.
    const where = /position (\d+)/.exec((err as Error).message);
    throw new Error(`${name} is not valid JSON${where ? ` (at character ${where[1]})` : ''}`);
  }
}

/** Reads a JSON file, replacing `{"$ref": "file.json"}` objects with that file (Mintlify). */
async function readJsonWithRefs(root: string, file: string, depth = 0): Promise<Json> {
  const value = parseJson(await readInside(root, file), path.relative(root, file));
  const expand = async (v: Json): Promise<Json> => {
    if (Array.isArray(v)) return Promise.all(v.map(expand));
    if (v && typeof v === 'object') {
      if (typeof v.$ref === 'string' && depth < 5) {
        return readJsonWithRefs(root, path.resolve(path.dirname(file), v.$ref), depth + 1);
      }
      const out: Record<string, Json> = {};
      for (const [k, x] of Object.entries(v)) out[k] = await expand(x);
      return out;
    }
    return v;
  };
  return expand(value);
}

function mintlifyPages(v: Json, out: string[]): void {
  if (Array.isArray(v)) return v.forEach((x) => mintlifyPages(x, out));
  if (!v || typeof v !== 'object') return;
  for (const [k, x] of Object.entries(v)) {
    if (k === 'pages' && Array.isArray(x)) {
      for (const p of x) {
        // "GET /users" entries are OpenAPI operations, not files.
        if (typeof p === 'string' && !/\s/.test(p)) out.push(p.replace(/^\//, ''));
        else mintlifyPages(p, out);
      }
    } else if (k === 'root' && typeof x === 'string') {
      // A group's landing page.
      out.push(x.replace(/^\//, ''));
    } else if (k !== 'redirects') {
      mintlifyPages(x, out);
    }
  }
}

function mintlifyRedirects(v: Json): string[] {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return [];
  const r = v.redirects;
  if (!Array.isArray(r)) return [];
  return r.flatMap((x) =>
    x && typeof x === 'object' && !Array.isArray(x) && typeof x.source === 'string'
      ? [x.source.replace(/^\//, '')]
      : [],
  );
}

function mkdocsPages(v: unknown, out: string[]): void {
  if (typeof v === 'string') {
    if (!/^[a-z]+:\/\//i.test(v)) out.push(v);
  } else if (Array.isArray(v)) {
    v.forEach((x) => mkdocsPages(x, out));
  } else if (v && typeof v === 'object') {
    Object.values(v).forEach((x) => mkdocsPages(x, out));
  }
}

/**
 * The pages a navigation file lists. Reads `text` when given (e.g. the base version from git),
 * else the file in `docsRoot`.
 */
export async function readNavigation(docsRoot: string, framework: Framework): Promise<Navigation> {
  const empty: Navigation = { explicit: false, pages: [], redirects: [], error: null };
  if (!framework.navigation) return empty;
  const file = path.join(docsRoot, framework.navigation);
  try {
    if (framework.kind === 'mkdocs') {
      // MkDocs files use Python tags (!!python/name:…); they are irrelevant to the nav.
      const doc = YAML.parse(await readInside(docsRoot, file), {
        customTags: [],
        strict: false,
        logLevel: 'silent',
      }) as {
        nav?: unknown;
        docs_dir?: string;
      } | null;
      const pages: string[] = [];
      mkdocsPages(doc?.nav ?? [], pages);
      const docsDir = doc?.docs_dir ?? 'docs';
      return {
        explicit: doc?.nav !== undefined,
        pages: pages.map((p) => path.posix.join(docsDir, p)),
        redirects: [],
        error: null,
      };
    }
    const json = await readJsonWithRefs(docsRoot, file);
    const pages: string[] = [];
    mintlifyPages(
      framework.kind === 'mintlify' ? ((json as Record<string, Json>)?.navigation ?? null) : json,
      pages,
    );
    return { explicit: true, pages, redirects: mintlifyRedirects(json), error: null };
  } catch (err) {
    return {
      ...empty,
      error: `${framework.navigation} cannot be read: ${(err as Error).message.split('\n')[0]}`,
    };
  }
}
