export const id = 431;
export const ids = [431];
export const modules = {

/***/ 8431:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   PathsError: () => (/* binding */ PathsError),
/* harmony export */   compilePaths: () => (/* binding */ compilePaths)
/* harmony export */ });
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
class PathsError extends Error {
    name = 'PathsError';
}
/**
 * Longer file names are relevant, unmatched (never a reason to skip): matching recurses about
 * once a character, and stays far within the stack below this.
 */
const MAX_PATH = 1024;
/**
 * Compiles the patterns, one a line (blank lines ignored, each trimmed). A file is relevant when
 * the last pattern that matches it is a positive one; a list that starts with a negation starts
 * from nothing included, as GitHub's does.
 */
function compilePaths(lines) {
    const patterns = lines
        .map((line) => line.trim())
        .filter(Boolean)
        .map((line, i) => compileOne(line, i + 1));
    const included = (file) => {
        if (file.length > MAX_PATH)
            return true;
        let verdict = false;
        for (const { negated, tokens } of patterns)
            if (matches(tokens, file))
                verdict = !negated;
        return verdict;
    };
    return {
        anyRelevant: (files) => files.some(included),
        relevant: (files) => files.filter(included),
    };
}
function compileOne(line, number) {
    const bad = (why) => {
        throw new PathsError(`Input "paths" line ${number} (${JSON.stringify(line.slice(0, 100))}) is not a pattern GitHub's filters read: ${why}. Patterns use *, **, ?, +, [] and a leading ! (see GitHub's filter pattern cheat sheet).`);
    };
    const negated = line.startsWith('!');
    const text = negated ? line.slice(1) : line;
    if (text === '')
        bad('a ! with nothing after it excludes nothing');
    if (text.startsWith('./'))
        bad('paths are written from the repository root, without a leading ./');
    const tokens = [];
    const char = (test) => tokens.push({ kind: 'char', test, min: 1, max: 1 });
    for (let i = 0; i < text.length; i++) {
        const ch = text.charAt(i);
        const last = tokens.at(-1);
        if (ch === '\\') {
            const next = text.charAt(i + 1);
            if (next === '')
                bad('it ends with a \\ that escapes nothing');
            char((c) => c === next);
            i++;
        }
        else if (ch === '*') {
            if (text.charAt(i + 1) === '*') {
                // `**` matches anything, `/` included; `**/` also matches no directory at all.
                let end = i + 1;
                while (text.charAt(end + 1) === '*')
                    end++;
                if (text.charAt(end + 1) === '/') {
                    tokens.push({ kind: 'dirs' });
                    end++;
                }
                else
                    tokens.push({ kind: 'any' });
                i = end;
            }
            else
                tokens.push({ kind: 'star' });
        }
        else if (ch === '?' || ch === '+') {
            // A quantifier of the character or class just before it, once.
            if (last?.kind !== 'char' || last.min !== 1 || last.max !== 1)
                return bad(`${ch} must follow a character or a [] class: it says how many of it`);
            if (ch === '?')
                last.min = 0;
            else
                last.max = Infinity;
        }
        else if (ch === '[') {
            const close = text.indexOf(']', i + 1);
            if (close < 0)
                bad('a [ is never closed');
            const klass = new RegExp(`^${characterClass(text.slice(i + 1, close), bad)}$`, 'u');
            char((c) => klass.test(c));
            i = close;
        }
        else {
            char((c) => c === ch);
        }
    }
    return { negated, tokens };
}
/**
 * Whether `tokens` match all of `text`: dynamic programming over (token, position), each state
 * computed once in constant time, so a file name from a fork's pull request cannot make matching
 * take exponential time the way a backtracking regular expression could.
 */
function matches(tokens, text) {
    const width = text.length + 1;
    // 0: unknown, 1: matches, 2: does not. `memo`: "tokens from i match text from j"; `more`: "token
    // i, a `+` or a `**/` already begun, goes on at j".
    const memo = new Uint8Array((tokens.length + 1) * width);
    const more = new Uint8Array((tokens.length + 1) * width);
    const cached = (table, i, j, compute) => {
        const key = i * width + j;
        const known = table[key];
        if (known)
            return known === 1;
        const result = compute();
        table[key] = result ? 1 : 2;
        return result;
    };
    const from = (i, j) => cached(memo, i, j, () => step(i, j));
    const goesOn = (i, j) => cached(more, i, j, () => {
        const token = tokens[i];
        if (j >= text.length || !token)
            return false;
        const ch = text.charAt(j);
        // Inside a `**/`: any characters until a `/`, after which the next token starts.
        if (token.kind === 'dirs')
            return (ch === '/' && from(i + 1, j + 1)) || goesOn(i, j + 1);
        // Inside a `+`: one more of the character, then the next token or more still.
        return token.kind === 'char' && token.test(ch) && (from(i + 1, j + 1) || goesOn(i, j + 1));
    });
    const step = (i, j) => {
        const token = tokens[i];
        if (!token)
            return j === text.length;
        const ch = text.charAt(j);
        const left = j < text.length;
        switch (token.kind) {
            case 'star':
                return from(i + 1, j) || (left && ch !== '/' && from(i, j + 1));
            case 'any':
                return from(i + 1, j) || (left && from(i, j + 1));
            case 'dirs':
                return from(i + 1, j) || goesOn(i, j);
            case 'char':
                if (token.min === 0 && from(i + 1, j))
                    return true;
                if (!left || !token.test(ch))
                    return false;
                return from(i + 1, j + 1) || (token.max === Infinity && goesOn(i, j + 1));
        }
    };
    return from(0, 0);
}
/** `[...]`: characters listed and ranges of letters or digits, as GitHub's cheat sheet allows. */
function characterClass(body, bad) {
    if (body === '')
        bad('[] lists no character');
    let out = '';
    for (let i = 0; i < body.length; i++) {
        const ch = body.charAt(i);
        if (body.charAt(i + 1) === '-' && i + 2 < body.length) {
            const to = body.charAt(i + 2);
            const range = /[a-z]/.test(ch) && /[a-z]/.test(to)
                ? true
                : /[A-Z]/.test(ch) && /[A-Z]/.test(to)
                    ? true
                    : /[0-9]/.test(ch) && /[0-9]/.test(to);
            if (!range || ch > to)
                bad(`[${body}] has a range ${ch}-${to}; ranges are a-z, A-Z or 0-9, low to high`);
            out += `${ch}-${to}`;
            i += 2;
        }
        else {
            if (ch === '/')
                bad(`[${body}] lists a /, which a class never matches`);
            out += ch.replace(/[\\\]^-]/g, (c) => `\\${c}`);
        }
    }
    return `[${out}]`;
}


/***/ })

};

//# sourceMappingURL=431.index.js.map