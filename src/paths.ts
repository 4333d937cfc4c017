// `paths`: GitHub Actions' filter patterns (the syntax of `on.push.paths`), compiled to regular
// expressions. Loaded only when `paths` is set, in its own chunk of dist/, so it imports nothing
// from the rest of src/ (ncc would otherwise merge modules across chunks).
//
// Why no glob library: GitHub's `?` and `+` are quantifiers of the preceding character (`*.jsx?`
// matches `page.js`), where every glob matcher reads `?` as one character and `+(…)` as an
// extglob; `**` matches across `/` anywhere in a segment (`**.js` matches `js/index.js`), where
// globstar libraries only honour it as a whole segment; and braces, parentheses and `@` are plain
// characters to GitHub. Laid over a library, every one of those would need undoing; translated
// directly, each rule of GitHub's cheat sheet is one line below, tested against its examples.

/** A pattern GitHub's filters would not read; the message names the input, the line and why. */
export class PathsError extends Error {
  override name = 'PathsError';
}

/** Compiled `paths` patterns. */
export interface PathFilter {
  /** Whether any of `files` is relevant (included after all patterns). */
  anyRelevant(files: string[]): boolean;
  /** The relevant ones. */
  relevant(files: string[]): string[];
}

interface Pattern {
  negated: boolean;
  regex: RegExp;
}

/**
 * Compiles the patterns, one a line (blank lines ignored, each trimmed). A file is relevant when
 * the last pattern that matches it is a positive one; a list that starts with a negation starts
 * from nothing included, as GitHub's does.
 */
export function compilePaths(lines: string[]): PathFilter {
  const patterns = lines
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line, i) => compileOne(line, i + 1));
  const included = (file: string): boolean => {
    let verdict = false;
    for (const { negated, regex } of patterns) if (regex.test(file)) verdict = !negated;
    return verdict;
  };
  return {
    anyRelevant: (files) => files.some(included),
    relevant: (files) => files.filter(included),
  };
}

function compileOne(line: string, number: number): Pattern {
  const bad = (why: string): never => {
    throw new PathsError(
      `Input "paths" line ${number} (${JSON.stringify(line.slice(0, 100))}) is not a pattern GitHub's filters read: ${why}. Patterns use *, **, ?, +, [] and a leading ! (see GitHub's filter pattern cheat sheet).`,
    );
  };
  const negated = line.startsWith('!');
  const text = negated ? line.slice(1) : line;
  if (text === '') bad('a ! with nothing after it excludes nothing');
  if (text.startsWith('./')) bad('paths are written from the repository root, without a leading ./');

  let source = '';
  /** Whether the last piece written is one a `?` or `+` may follow: a character or a class. */
  let quantifiable = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (ch === '\\') {
      const next = text.charAt(i + 1);
      if (next === '') bad('it ends with a \\ that escapes nothing');
      source += literal(next);
      quantifiable = true;
      i++;
    } else if (ch === '*') {
      if (text.charAt(i + 1) === '*') {
        // `**` matches anything, `/` included; `**/` also matches no directory at all.
        let end = i + 1;
        while (text.charAt(end + 1) === '*') end++;
        if (text.charAt(end + 1) === '/') {
          source += '(?:.*/)?';
          end++;
        } else source += '.*';
        i = end;
      } else source += '[^/]*';
      quantifiable = false;
    } else if (ch === '?' || ch === '+') {
      if (!quantifiable) bad(`${ch} must follow a character or a [] class: it says how many of it`);
      source += ch;
      quantifiable = false;
    } else if (ch === '[') {
      const close = text.indexOf(']', i + 1);
      if (close < 0) bad('a [ is never closed');
      source += characterClass(text.slice(i + 1, close), bad);
      quantifiable = true;
      i = close;
    } else {
      source += literal(ch);
      quantifiable = true;
    }
  }
  return { negated, regex: new RegExp(`^${source}$`, 'u') };
}

/** `[...]`: characters listed and ranges of letters or digits, as GitHub's cheat sheet allows. */
function characterClass(body: string, bad: (why: string) => never): string {
  if (body === '') bad('[] lists no character');
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body.charAt(i);
    if (body.charAt(i + 1) === '-' && i + 2 < body.length) {
      const to = body.charAt(i + 2);
      const range =
        /[a-z]/.test(ch) && /[a-z]/.test(to)
          ? true
          : /[A-Z]/.test(ch) && /[A-Z]/.test(to)
            ? true
            : /[0-9]/.test(ch) && /[0-9]/.test(to);
      if (!range || ch > to)
        bad(`[${body}] has a range ${ch}-${to}; ranges are a-z, A-Z or 0-9, low to high`);
      out += `${ch}-${to}`;
      i += 2;
    } else {
      if (ch === '/') bad(`[${body}] lists a /, which a class never matches`);
      out += ch.replace(/[\\\]^-]/g, (c) => `\\${c}`);
    }
  }
  return `[${out}]`;
}

/** A character as itself in a regular expression. */
function literal(ch: string): string {
  return ch.replace(/[.*+?^${}()|[\]\\/]/g, (c) => `\\${c}`);
}
