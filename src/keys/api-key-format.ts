import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

// rdl_ + 32 random base62 characters + 6 base62 characters of CRC32 over the random part
// (DESIGN.md §1): a mistyped key is rejected before any database lookup.
export const KEY_PREFIX = 'rdl_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_SHAPE = /^rdl_[0-9A-Za-z]{38}$/;

function base62(n: number, width: number): string {
  let out = '';
  let rest = n;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

export function checksum(random: string): string {
  return base62(crc32(random), CHECKSUM_LENGTH);
}

export function generateApiKey(): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += ALPHABET[randomInt(62)];
  return KEY_PREFIX + random + checksum(random);
}

/** Shape and checksum only; says nothing about whether the key exists. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_SHAPE.test(key)) return false;
  const random = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + RANDOM_LENGTH);
  return key.slice(KEY_PREFIX.length + RANDOM_LENGTH) === checksum(random);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The part shown in lists so a person can tell keys apart: `rdl_` and the first 6 random characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 6);
}
