export const id = 404;
export const ids = [404];
export const modules = {

/***/ 9404:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   PathsError: () => (/* binding */ PathsError),
/* harmony export */   compilePaths: () => (/* binding */ compilePaths)
/* harmony export */ });
/* unused harmony exports PATHS_LIMITS, MAX_WORK */
class PathsError extends Error {
    name = 'PathsError';
}
const PATHS_LIMITS = { patterns: 100, length: 256, wildcards: 32 };
const MAX_PATH = 4096;
const MAX_WORK = 100_000_000;
const SLICE_WORK = 200_000;
const anyChar = () => true;
const notSlash = (ch) => ch !== '/';
const isSlash = (ch) => ch === '/';
function compilePaths(lines, maxWork = MAX_WORK) {
    const given = lines.map((line) => line.trim()).filter(Boolean);
    if (given.length > PATHS_LIMITS.patterns) {
        throw new PathsError(`Input "paths" has ${given.length} patterns; at most ${PATHS_LIMITS.patterns} are read. Name directories (docs/**) rather than files.`);
    }
    const patterns = given.map((line, i) => compileOne(line, i + 1));
    const matcher = new Matcher();
    return {
        async relevant(files, signal) {
            const relevant = [];
            let work = 0;
            let sinceYield = 0;
            for (const [at, file] of files.entries()) {
                if (file.length > MAX_PATH) {
                    relevant.push(file);
                    continue;
                }
                let verdict = false;
                for (const pattern of patterns) {
                    if (pattern.negated !== verdict)
                        continue;
                    if (sinceYield >= SLICE_WORK) {
                        sinceYield = 0;
                        await new Promise((resolve) => setImmediate(resolve));
                        if (signal?.aborted)
                            throw signal.reason;
                    }
                    if (work >= maxWork)
                        return { relevant, undecided: files.length - at };
                    const spent = matcher.matches(pattern, file);
                    work += spent.work;
                    sinceYield += spent.work;
                    if (spent.matched)
                        verdict = !pattern.negated;
                }
                if (verdict)
                    relevant.push(file);
            }
            return { relevant, undecided: 0 };
        },
    };
}
function compileOne(line, number) {
    const bad = (why) => {
        throw new PathsError(`Input "paths" line ${number} (${JSON.stringify(line.slice(0, 100))}) is not a pattern GitHub's filters read: ${why}. Patterns use *, **, ?, +, [] and a leading ! (see GitHub's filter pattern cheat sheet).`);
    };
    const tooMuch = (what) => {
        throw new PathsError(`Input "paths" line ${number} (${JSON.stringify(line.slice(0, 100))}) ${what}. Shorten it, or split it into several patterns.`);
    };
    if (line.length > PATHS_LIMITS.length) {
        tooMuch(`is ${line.length} characters long; a pattern may have at most ${PATHS_LIMITS.length}`);
    }
    const negated = line.startsWith('!');
    const text = negated ? line.slice(1) : line;
    if (text === '')
        bad('a ! with nothing after it excludes nothing');
    if (text.startsWith('./'))
        bad('paths are written from the repository root, without a leading ./');
    const tokens = [];
    let wildcards = 0;
    const char = (test, literal) => tokens.push({ kind: 'char', test, min: 1, max: 1, ...(literal !== undefined ? { literal } : {}) });
    for (let i = 0; i < text.length; i++) {
        const ch = text.charAt(i);
        const last = tokens.at(-1);
        if (ch === '*' || ch === '?' || ch === '+')
            wildcards++;
        if (ch === '\\') {
            const next = text.charAt(i + 1);
            if (next === '')
                bad('it ends with a \\ that escapes nothing');
            char((c) => c === next, next);
            i++;
        }
        else if (ch === '*') {
            if (text.charAt(i + 1) === '*') {
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
            char((c) => c === ch, ch);
        }
    }
    if (wildcards > PATHS_LIMITS.wildcards) {
        tooMuch(`has ${wildcards} wildcards (*, ?, +); a pattern may have at most ${PATHS_LIMITS.wildcards}`);
    }
    const prefix = literals(tokens);
    const suffix = literals(tokens.slice(prefix.length).reverse(), true);
    return { negated, states: states(tokens), prefix, suffix };
}
function states(tokens) {
    return tokens.flatMap((token) => {
        switch (token.kind) {
            case 'star':
                return [{ loop: notSlash, skip: true }];
            case 'any':
                return [{ loop: anyChar, skip: true }];
            case 'dirs':
                return [
                    { skip: true, leap: true },
                    { loop: anyChar, step: isSlash, skip: false },
                ];
            case 'char':
                if (token.max === Infinity)
                    return [
                        { step: token.test, skip: false },
                        { loop: token.test, skip: true },
                    ];
                return [{ step: token.test, skip: token.min === 0 }];
        }
    });
}
function literals(tokens, reversed = false) {
    let out = '';
    for (const token of tokens) {
        if (token.kind !== 'char' || token.literal === undefined || token.min !== 1 || token.max !== 1)
            break;
        out = reversed ? token.literal + out : out + token.literal;
    }
    return out;
}
class Matcher {
    current = new Int32Array(0);
    next = new Int32Array(0);
    seen = new Int32Array(0);
    pending = new Int32Array(0);
    matches(pattern, text) {
        const { states, prefix, suffix } = pattern;
        if (text.length < prefix.length + suffix.length || !text.startsWith(prefix) || !text.endsWith(suffix)) {
            return { matched: false, work: prefix.length + suffix.length + 1 };
        }
        const size = states.length + 1;
        if (this.seen.length < size) {
            this.current = new Int32Array(size);
            this.next = new Int32Array(size);
            this.seen = new Int32Array(size);
            this.pending = new Int32Array(2 * size + 2);
        }
        const seen = this.seen;
        seen.fill(-1, 0, size);
        let current = this.current;
        let next = this.next;
        let count = 0;
        let work = 0;
        const pending = this.pending;
        const add = (list, length, from, stamp) => {
            let depth = 0;
            pending[depth++] = from;
            while (depth > 0) {
                const at = pending[--depth] ?? size;
                if (at >= size || seen[at] === stamp)
                    continue;
                seen[at] = stamp;
                list[length++] = at;
                const state = states[at];
                if (state?.skip)
                    pending[depth++] = at + 1;
                if (state?.leap)
                    pending[depth++] = at + 2;
            }
            return length;
        };
        count = add(current, 0, 0, 0);
        for (let j = 0; j < text.length && count > 0; j++) {
            const ch = text.charAt(j);
            let length = 0;
            for (let k = 0; k < count; k++) {
                const at = current[k] ?? 0;
                const state = states[at];
                if (!state)
                    continue;
                if (state.loop?.(ch))
                    length = add(next, length, at, j + 1);
                if (state.step?.(ch))
                    length = add(next, length, at + 1, j + 1);
            }
            work += count + 1;
            [current, next] = [next, current];
            count = length;
        }
        return { matched: count > 0 && seen[size - 1] === text.length, work };
    }
}
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

//# sourceMappingURL=404.index.js.map