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

export class Redactor {
  /** Longest first, so a secret that contains another is replaced whole. */
  private secrets: string[] = [];
  /** Every MIN_PIECE-character piece of every secret at least that long. */
  private readonly pieces = new Set<string>();

  add(secret: string): void {
    if (secret.length < MIN_SECRET || this.secrets.includes(secret)) return;
    this.secrets = [...this.secrets, secret].sort((a, b) => b.length - a.length);
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

  /** A parsed JSON value with every string in it (property names too) redacted. */
  redactJson(value: unknown): unknown {
    if (this.secrets.length === 0) return value;
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((item) => this.redactJson(item));
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([name, item]) => [this.redact(name), this.redactJson(item)]),
      );
    }
    return value;
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
