import type { Kysely } from 'kysely';
import { RedlineError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { toProject } from '../projects/projects.js';
import type { Project } from '../projects/projects.js';
import type { Notifier } from '../jobs/notifier.js';
import type { ApiKeyTable, DB } from '../store/schema.js';
import { displayPrefix, generateApiKey, hashApiKey, isWellFormedApiKey } from './api-key-format.js';

export interface ApiKeyInfo {
  id: string;
  prefix: string;
  projectId: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface CreatedApiKey extends ApiKeyInfo {
  /** The full key: returned once, never stored. */
  key: string;
}

export interface AuthenticatedKey {
  keyId: string;
  project: Project;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function toInfo(row: ApiKeyTable): ApiKeyInfo {
  return {
    id: row.id,
    prefix: row.prefix,
    projectId: row.project_id,
    name: row.name,
    createdAt: iso(row.created_at)!,
    lastUsedAt: iso(row.last_used_at),
    revokedAt: iso(row.revoked_at),
  };
}

// lastUsedAt is advisory; writing it on every request would put a write on the hot read path.
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * How long a successful key lookup is reused. Auth is the one query every request makes; reusing
 * it roughly doubles GET throughput. A revocation anywhere (this process, the CLI, another server)
 * clears every process's cache through the notifier, so revoked keys are refused at once; the
 * TTL only bounds how stale a project's settings can be.
 */
export const AUTH_CACHE_TTL_MS = 5_000;
const AUTH_CACHE_MAX = 10_000;

interface CachedAuth {
  auth: AuthenticatedKey;
  lastUsedAt: number | null;
  expiresAt: number;
}

export class ApiKeyStore {
  readonly #cache = new Map<string, CachedAuth>();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly notifier: Notifier,
  ) {
    notifier.onKeyRevoked(() => this.#cache.clear());
  }

  async create(projectId: string, name = 'default'): Promise<CreatedApiKey> {
    const project = await this.db
      .selectFrom('projects')
      .select('id')
      .where('id', '=', projectId)
      .executeTakeFirst();
    if (!project) throw notFound(`Project ${projectId}`);
    const trimmed = name.trim();
    if (trimmed === '' || trimmed.length > 200) {
      throw new RedlineError('invalid_request', 'key name must be 1 to 200 characters', { field: 'name' });
    }
    const key = generateApiKey();
    const row: ApiKeyTable = {
      id: newId('key'),
      project_id: projectId,
      name: trimmed,
      prefix: displayPrefix(key),
      key_hash: hashApiKey(key),
      created_at: Date.now(),
      last_used_at: null,
      revoked_at: null,
    };
    await this.db.insertInto('api_keys').values(row).execute();
    return { ...toInfo(row), key };
  }

  async list(projectId: string): Promise<ApiKeyInfo[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('id')
      .execute();
    return rows.map(toInfo);
  }

  /** Revoking twice is not an error; the first revocation time is kept. */
  async revoke(keyId: string): Promise<ApiKeyInfo> {
    const now = Date.now();
    this.#cache.clear();
    await this.db
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where('id', '=', keyId)
      .where('revoked_at', 'is', null)
      .execute();
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
    if (!row) throw notFound(`API key ${keyId}`);
    await this.notifier.publishKeyRevoked(keyId);
    return toInfo(row);
  }

  /** The key and its project (one query), or null for a malformed, unknown or revoked key. */
  async authenticate(key: string): Promise<AuthenticatedKey | null> {
    if (!isWellFormedApiKey(key)) return null;
    const hash = hashApiKey(key);
    const now = Date.now();
    let entry = this.#cache.get(hash);
    if (!entry || entry.expiresAt <= now) {
      this.#cache.delete(hash);
      const row = await this.db
        .selectFrom('api_keys')
        .innerJoin('projects', 'projects.id', 'api_keys.project_id')
        .selectAll('projects')
        .select(['api_keys.id as key_id', 'api_keys.revoked_at', 'api_keys.last_used_at'])
        .where('api_keys.key_hash', '=', hash)
        .executeTakeFirst();
      if (!row || row.revoked_at !== null) return null;
      entry = {
        auth: { keyId: row.key_id, project: toProject(row) },
        lastUsedAt: row.last_used_at,
        expiresAt: now + AUTH_CACHE_TTL_MS,
      };
      if (this.#cache.size >= AUTH_CACHE_MAX) this.#cache.clear();
      this.#cache.set(hash, entry);
    }
    if (entry.lastUsedAt === null || now - entry.lastUsedAt > LAST_USED_RESOLUTION_MS) {
      entry.lastUsedAt = now;
      await this.db
        .updateTable('api_keys')
        .set({ last_used_at: now })
        .where('id', '=', entry.auth.keyId)
        .execute();
    }
    return entry.auth;
  }
}
