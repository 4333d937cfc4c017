import * as core from '@actions/core';

/**
 * The runner masks only exact copies of a secret. The action shortens, quotes and escapes text
 * from the service before it prints it, and each of those turns an echoed secret into something
 * the mask no longer matches: a key cut at 24 characters, a `"` escaped to `\"`, a `<` turned
 * into `&lt;`. So every secret is also redacted here, from the text itself, before anything else
 * touches it.
 */

/** The mark a redacted secret leaves, as the runner's mask does. */
const REDACTED = '***';

/**
 * A run of this many characters taken from a secret is treated as the secret: gateways print
 * tokens cut short ("token=mint_abc…"), and a piece that long is still worth stealing. Shorter
 * secrets (a proxy password, say) are redacted where they appear whole.
 */
export const MIN_PIECE = 12;

/**
 * Shorter values are not redacted: "1" or "docs" would be taken out of every job id and link.
 * (No real key or token is that short; a proxy password that short is not masked either.)
 */
export const MIN_SECRET = 6;

/**
 * The forms a secret takes when a gateway or a client encodes it before echoing it: percent-encoded
 * (either case of hex) and base64 (standard and URL-safe). Base64 of a longer text that holds the
 * secret (`Basic base64("Bearer " + key)`) depends on where the secret starts within groups of
 * three bytes, so each of the three alignments is covered, as the runner's masker does: the
 * characters that encode only the secret's bytes are the same whatever surrounds it.
 */
function encodedForms(secret: string): string[] {
  const forms = new Set<string>();
  const percent = encodeURIComponent(secret);
  forms.add(percent);
  forms.add(percent.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
  const bytes = Buffer.from(secret, 'utf8');
  for (const skip of [0, 1, 2]) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    if (whole <= 0) continue;
    const aligned = bytes.subarray(skip, skip + whole);
    forms.add(aligned.toString('base64'));
    forms.add(aligned.toString('base64url'));
  }
  // Shorter forms would match ordinary text; the secret itself is already on the list.
  return [...forms].filter((form) => form.length >= MIN_PIECE && form !== secret);
}

export class Redactor {
  /** Longest first, so a secret that contains another is replaced whole. */
  private secrets: string[] = [];
  /** Every MIN_PIECE-character piece of every secret at least that long. */
  private readonly pieces = new Set<string>();

  add(secret: string): void {
    if (secret.length < MIN_SECRET || this.secrets.includes(secret)) return;
    this.secrets = [...this.secrets, secret, ...encodedForms(secret)].sort((a, b) => b.length - a.length);
    for (let i = 0; i + MIN_PIECE <= secret.length; i++) this.pieces.add(secret.slice(i, i + MIN_PIECE));
  }

  /** `text` with every secret, and every piece of one, replaced by `***`. */
  redact(text: string): string {
    if (this.secrets.length === 0 || text === '') return text;
    let clean = text;
    for (const secret of this.secrets) {
      if (clean.includes(secret)) clean = clean.split(secret).join(REDACTED);
    }
    return this.pieces.size > 0 ? this.redactPieces(clean) : clean;
  }

  /**
   * A parsed JSON value with every string in it (property names too) redacted. Iterative: a
   * reply nested thousands deep must not overflow the stack on its way in.
   */
  redactJson(value: unknown): unknown {
    if (this.secrets.length === 0) return value;
    const root: Record<string, unknown> = { value };
    const todo: [Record<string | number, unknown>, string | number][] = [[root, 'value']];
    for (let next = todo.pop(); next; next = todo.pop()) {
      const [holder, key] = next;
      const item = holder[key];
      if (typeof item === 'string') {
        holder[key] = this.redact(item);
      } else if (Array.isArray(item)) {
        const copy: unknown[] = [...(item as unknown[])];
        holder[key] = copy;
        for (let i = 0; i < copy.length; i++) todo.push([copy as unknown as Record<number, unknown>, i]);
      } else if (item && typeof item === 'object') {
        // fromEntries defines properties, so a "__proto__" name stays a plain property.
        const copy = Object.fromEntries(
          Object.entries(item).map(([name, inner]) => [this.redact(name), inner]),
        ) as Record<string, unknown>;
        holder[key] = copy;
        for (const name of Object.keys(copy)) todo.push([copy, name]);
      }
    }
    return root.value;
  }

  private redactPieces(text: string): string {
    // Runs of overlapping or touching pieces, as [start, end) ranges.
    const runs: [number, number][] = [];
    for (let i = 0; i + MIN_PIECE <= text.length; i++) {
      if (!this.pieces.has(text.slice(i, i + MIN_PIECE))) continue;
      const last = runs.at(-1);
      if (last && i <= last[1]) last[1] = i + MIN_PIECE;
      else runs.push([i, i + MIN_PIECE]);
    }
    if (runs.length === 0) return text;
    let out = '';
    let copiedTo = 0;
    for (const [start, end] of runs) {
      out += text.slice(copiedTo, start) + REDACTED;
      copiedTo = end;
    }
    return out + text.slice(copiedTo);
  }
}

/** The secrets of this run: every value masked with the runner is redacted here too. */
const redactor = new Redactor();

/**
 * Registers a secret with the runner's mask and with `redact`. Call it before anything is
 * printed. Each line counts on its own too: the runner masks line by line.
 */
export function maskSecret(secret: string): void {
  if (!secret) return;
  core.setSecret(secret);
  redactor.add(secret);
  for (const line of secret.split(/\r?\n/)) {
    const part = line.trim();
    if (part && part !== secret) {
      core.setSecret(part);
      redactor.add(part);
    }
  }
}

/**
 * The one function every piece of text from the service or the network goes through before it
 * is shortened, quoted, escaped, printed, written to an output or the summary.
 */
export function redact(text: string): string {
  return redactor.redact(text);
}

/** `redact` for every string in a parsed reply body. */
export function redactJson(value: unknown): unknown {
  return redactor.redactJson(value);
}

/**
 * The runner's own tokens: it masks them in its log already, but nothing stops a prompt file or
 * an echo from carrying them into a request, an output or the comment.
 */
export const RUNNER_TOKENS = ['ACTIONS_RUNTIME_TOKEN', 'ACTIONS_ID_TOKEN_REQUEST_TOKEN'] as const;

/** Registers a secret the runner masks already: redacted here, not announced to it again. */
export function redactAlso(secret: string | undefined): void {
  if (secret) redactor.add(secret);
}
