// The service's published OpenAPI description is the emulator's contract: routes, methods,
// request bodies and reply shapes are read from it rather than restated here, so the emulator
// cannot quietly drift from what the real service documents.
//
// A JSON import (not readFileSync) because ncc inlines it into the bundle and ts-jest and Node
// load it natively: the emulator has no asset to lose whichever way it is run.
import spec from './openapi/agent-api.openapi.json' with { type: 'json' };

export type Route = 'create' | 'get' | 'message';

interface Schema {
  $ref?: string;
  type?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  minLength?: number;
  enum?: unknown[];
  nullable?: boolean;
  format?: string;
}

interface MediaTypes {
  content?: Record<string, { schema?: Schema }>;
}

interface Operation {
  requestBody?: MediaTypes & { required?: boolean };
  responses: Record<string, MediaTypes & { description?: string }>;
  security?: Array<Record<string, string[]>>;
}

interface Document {
  security?: Array<Record<string, string[]>>;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    securitySchemes: Record<string, { type: string; scheme?: string }>;
  };
}

// The JSON's inferred literal type is narrower than the shapes above; the checks below fail
// loudly at load if the file stops matching them.
const document = spec as unknown as Document;

// Only names the spec's paths; everything else about a route comes from the spec.
const ROUTE_PATHS: Record<Route, string> = {
  create: '/v2/agent/{projectId}/job',
  get: '/v2/agent/{projectId}/job/{id}',
  message: '/v2/agent/{projectId}/job/{id}/message',
};

// Statuses the service's documentation names but the OpenAPI file leaves out (docs/design.md §1 and
// 3.4): a rejected or expired key, a key without the scope or off its IP allowlist, and an
// unknown project on create. Without them every such default reply would count as a violation.
const UNLISTED_STATUSES: Record<Route, string[]> = {
  create: ['401', '403', '404'],
  get: ['401', '403'],
  message: ['401', '403'],
};

// The subset of JSON Schema the validator below understands; anything else in the spec would be
// silently ignored, so it is refused at load instead.
const SCHEMA_KEYWORDS = new Set([
  '$ref',
  'type',
  'required',
  'properties',
  'minLength',
  'enum',
  'nullable',
  'format',
  'description',
  'example',
]);

type Segment = { literal: string } | { param: string };

interface CompiledRoute {
  route: Route;
  template: string;
  segments: Segment[];
  operations: Map<string, Operation>;
}

const compiled: CompiledRoute[] = (Object.keys(ROUTE_PATHS) as Route[]).map((route) => {
  const template = ROUTE_PATHS[route];
  const item = document.paths[template];
  if (!item) throw new Error(`agent-api.openapi.json has no path ${template}`);
  const segments = template
    .split('/')
    .slice(1)
    .map((part): Segment => {
      const param = /^\{(\w+)\}$/.exec(part)?.[1];
      return param === undefined ? { literal: part } : { param };
    });
  const operations = new Map(Object.entries(item).map(([method, op]) => [method.toUpperCase(), op]));
  for (const op of operations.values()) assertBearerOnly(op);
  return { route, template, segments, operations };
});

for (const schema of Object.values(document.components.schemas)) assertKnownKeywords(schema);
for (const { operations } of compiled) {
  for (const op of operations.values()) {
    for (const media of [op.requestBody, ...Object.values(op.responses)]) {
      for (const { schema } of Object.values(media?.content ?? {})) if (schema) assertKnownKeywords(schema);
    }
  }
}

function assertKnownKeywords(schema: Schema): void {
  for (const key of Object.keys(schema)) {
    if (!SCHEMA_KEYWORDS.has(key)) throw new Error(`agent-api.openapi.json uses unsupported keyword ${key}`);
  }
  for (const child of Object.values(schema.properties ?? {})) assertKnownKeywords(child);
}

function securityOf(op: Operation): string[] {
  return (op.security ?? document.security ?? []).flatMap((requirement) => Object.keys(requirement));
}

function assertBearerOnly(op: Operation): void {
  for (const name of securityOf(op)) {
    const scheme = document.components.securitySchemes[name];
    if (scheme?.type !== 'http' || scheme.scheme?.toLowerCase() !== 'bearer') {
      throw new Error(`agent-api.openapi.json uses security scheme ${name}, which the emulator cannot check`);
    }
  }
}

export interface PathMatch {
  route: Route;
  projectId: string;
  jobId?: string;
  /** The methods the spec allows on this path, upper-case. */
  methods: string[];
}

/** Normalises a path prefix to `''` or `/prefix` (no trailing slash). */
export function normaliseBasePath(basePath = ''): string {
  const trimmed = basePath.replace(/\/+$/, '');
  return trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** Which spec path a raw request path (no query) is, whatever the method; params decoded. */
export function matchPath(pathname: string, basePath = ''): PathMatch | undefined {
  const base = normaliseBasePath(basePath);
  if (!pathname.startsWith(`${base}/`)) return undefined;
  const parts = pathname.slice(base.length + 1).split('/');
  for (const { route, segments, operations } of compiled) {
    const params = matchSegments(segments, parts);
    if (params === undefined) continue;
    const projectId = params.get('projectId');
    if (projectId === undefined) continue;
    const jobId = params.get('id');
    return { route, projectId, ...(jobId === undefined ? {} : { jobId }), methods: [...operations.keys()] };
  }
  return undefined;
}

function matchSegments(segments: Segment[], parts: string[]): Map<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params = new Map<string, string>();
  for (const [index, segment] of segments.entries()) {
    const part = parts[index] ?? '';
    if ('literal' in segment) {
      if (part !== segment.literal) return undefined;
      continue;
    }
    // Split before decoding, so an id with an encoded `/` (%2F) stays one parameter.
    const value = decodeSegment(part);
    if (value === undefined || value === '') return undefined;
    params.set(segment.param, value);
  }
  return params;
}

function decodeSegment(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** The route a request is for, when both its path and its method are in the spec. */
export function matchRoute(
  method: string,
  pathname: string,
  basePath = '',
): Omit<PathMatch, 'methods'> | undefined {
  const match = matchPath(pathname, basePath);
  if (!match?.methods.includes(method.toUpperCase())) return undefined;
  const { route, projectId, jobId } = match;
  return { route, projectId, ...(jobId === undefined ? {} : { jobId }) };
}

function operationOf(route: Route, method?: string): Operation {
  const routeInfo = compiled.find((entry) => entry.route === route);
  const op = method
    ? routeInfo?.operations.get(method.toUpperCase())
    : routeInfo?.operations.values().next().value;
  if (!op) throw new Error(`agent-api.openapi.json has no ${method ?? 'operation'} for ${route}`);
  return op;
}

/** The token of an `Authorization: Bearer <token>` header (RFC 6750), else undefined. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  return /^bearer (\S+)$/i.exec(header)?.[1];
}

export interface RequestToCheck {
  method: string;
  /** The raw request target's path, still percent-encoded. */
  pathname: string;
  /** The raw query string including `?`, or '' when there is none. */
  search?: string;
  basePath?: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Every way a request breaks the spec; empty when it keeps to it. */
export function checkRequest(request: RequestToCheck): string[] {
  const where = `${request.method} ${request.pathname}`;
  const match = matchPath(request.pathname, request.basePath);
  if (!match) return [`${where}: no such path in the spec`];
  if (!match.methods.includes(request.method.toUpperCase())) {
    return [`${where}: method not allowed by the spec (allowed: ${match.methods.join(', ')})`];
  }
  const op = operationOf(match.route, request.method);
  const problems: string[] = [];
  // The spec declares path parameters only.
  if (request.search) problems.push('query string not in the spec');
  if (securityOf(op).length > 0) {
    const header = request.headers['authorization'];
    if (header === undefined) problems.push('Authorization header is missing');
    else if (bearerToken(header) === undefined) problems.push('Authorization header is not "Bearer <token>"');
  }
  problems.push(...checkBody(match.route, request.headers['content-type'], request.body));
  return problems.map((problem) => `${where}: ${problem}`);
}

/** Problems with a request body for a route (content type, JSON, schema); empty when fine. */
export function checkBody(route: Route, contentType: string | string[] | undefined, body: string): string[] {
  const requestBody = operationOf(route).requestBody;
  if (!requestBody) return body === '' ? [] : ['request body not in the spec'];
  if (body === '') return requestBody.required ? ['request body is missing'] : [];
  const mediaType = typeof contentType === 'string' ? contentType.split(';')[0]?.trim().toLowerCase() : '';
  const schema = requestBody.content?.[mediaType ?? '']?.schema;
  if (mediaType !== 'application/json' || !schema) {
    return [`Content-Type ${mediaType || '(none)'} not in the spec (expected application/json)`];
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return ['request body is not valid JSON'];
  }
  return validate(schema, value, 'body');
}

/** Every way a reply breaks the spec: a status it does not list, or a body off its schema. */
export function checkResponse(route: Route, status: number, body: unknown): string[] {
  const op = operationOf(route);
  const listed = op.responses[String(status)];
  if (!listed) {
    if (UNLISTED_STATUSES[route].includes(String(status))) {
      return validate({ $ref: '#/components/schemas/Error' }, body, `${route} ${status} body`);
    }
    return [`${route}: status ${status} is not one the spec lists (${Object.keys(op.responses).join(', ')})`];
  }
  const schema = listed.content?.['application/json']?.schema;
  return schema ? validate(schema, body, `${route} ${status} body`) : [];
}

/** The spec's description of a status for a route ("Rate limit exceeded"), if it has one. */
export function describeStatus(route: Route, status: number): string | undefined {
  return operationOf(route).responses[String(status)]?.description;
}

function validate(schema: Schema, value: unknown, at: string): string[] {
  if (schema.$ref !== undefined) return validate(resolve(schema.$ref), value, at);
  // OpenAPI 3.0: null is allowed only by `nullable`, and only when a type is given at all.
  if (value === null) return schema.type === undefined || schema.nullable ? [] : [`${at} must not be null`];
  if (schema.type !== undefined && !hasType(value, schema.type))
    return [`${at} must be of type ${schema.type}`];
  const problems: string[] = [];
  if (schema.enum && !schema.enum.includes(value)) {
    problems.push(`${at} must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && [...value].length < schema.minLength) {
      problems.push(`${at} must be at least ${schema.minLength} character(s) long`);
    }
    if (schema.format && !hasFormat(value, schema.format)) problems.push(`${at} must be a ${schema.format}`);
  }
  if (isObject(value)) {
    for (const key of schema.required ?? []) {
      if (value[key] === undefined) problems.push(`${at}.${key} is required`);
    }
    for (const [key, child] of Object.entries(schema.properties ?? {})) {
      if (value[key] !== undefined) problems.push(...validate(child, value[key], `${at}.${key}`));
    }
  }
  return problems;
}

function resolve(ref: string): Schema {
  const name = /^#\/components\/schemas\/([^/]+)$/.exec(ref)?.[1];
  const schema = name === undefined ? undefined : document.components.schemas[name];
  if (!schema) throw new Error(`agent-api.openapi.json: cannot resolve ${ref}`);
  return schema;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
    case 'string':
    case 'boolean':
      return typeof value === type;
    default:
      throw new Error(`agent-api.openapi.json uses unsupported type ${type}`);
  }
}

// Loose on purpose: enough to catch "not a URL" or "not a timestamp", not a full RFC check.
function hasFormat(value: string, format: string): boolean {
  switch (format) {
    case 'uri':
      return URL.canParse(value);
    case 'date-time':
      return (
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value) &&
        !Number.isNaN(Date.parse(value))
      );
    default:
      return true;
  }
}
