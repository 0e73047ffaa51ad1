// Every answer a test receives from a service it started is checked against
// the OpenAPI document (src/openapi/document.ts): the status must be
// documented for the path and method, the media type must be one the document
// lists, and a JSON body must match the schema. test/run-tests.ts loads this
// module into every test process with `node --import`; it wraps
// globalThis.fetch, and a mismatch makes that fetch throw (failing the test
// that received it) and, in case a test swallowed the error, makes the test
// process exit non-zero with the list of mismatches.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { openApiDocument } from '../../src/openapi/document.js';
import { noteSecret, noteSharePath } from './log-audit.js';
import { serviceOrigins } from './service-origins.js';

type Json = Record<string, unknown>;

const DOCUMENT_ID = 'urn:edu-fileproxy:openapi';
const STANDARD_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** What the router answers, before any route, for a method a path does not have, and while shutting down. */
const WITHOUT_OPERATION = ['405', '503'];

/** A response as far as the check needs it; `readJson` is only called for JSON bodies. */
export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  contentLength: string | null;
  readJson(): Promise<unknown>;
}

export interface CheckOutcome {
  /** The documented operation that answered, if any. */
  operationId: string | undefined;
  /** What does not fit the document; undefined when everything does. */
  problem: string | undefined;
}

interface PathEntry {
  template: string;
  regex: RegExp;
  item: Json;
  /** Templates with fewer parameters win (OpenAPI: concrete paths before templated ones). */
  parameters: number;
}

export class OpenApiResponseChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly paths: PathEntry[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(document: Json) {
    formatsPlugin.default(this.ajv);
    this.ajv.addSchema(document, DOCUMENT_ID);
    this.paths = Object.entries(document['paths'] as Record<string, Json>)
      .map(([template, item]) => pathEntry(template, item))
      .sort((a, b) => a.parameters - b.parameters);
  }

  async check(r: ObservedResponse): Promise<CheckOutcome> {
    const entry = this.paths.find((p) => p.regex.test(r.path));
    if (!entry) return { operationId: undefined, problem: undefined };
    const operation = operationOf(entry.item, r.method);
    const status = String(r.status);
    if (!operation) {
      const problem = WITHOUT_OPERATION.includes(status)
        ? await this.checkJson(r, ['components', 'schemas', 'Error'])
        : `${r.method} is not documented for ${entry.template}, so only ${WITHOUT_OPERATION.join(' or ')} may answer it`;
      return { operationId: undefined, problem };
    }
    const operationId = operation['operationId'] as string | undefined;
    const responses = operation['responses'] as Record<string, Json>;
    const key = [status, `${status[0]}XX`, 'default'].find((k) => k in responses);
    if (key === undefined) {
      return { operationId, problem: `status ${status} is not documented for ${r.method} ${entry.template} (documented: ${Object.keys(responses).join(', ')})` };
    }
    if (r.method === 'HEAD') return { operationId, problem: undefined };
    return { operationId, problem: await this.checkContent(r, entry, key, responses[key]!) };
  }

  private async checkContent(r: ObservedResponse, entry: PathEntry, key: string, response: Json): Promise<string | undefined> {
    const content = response['content'] as Record<string, Json> | undefined;
    const hasBody = r.contentType !== null && r.contentLength !== '0';
    if (!content) return hasBody ? `a body of type ${r.contentType} came, but the document describes none for ${key}` : undefined;
    if (r.contentType === null) return `no Content-Type, but the document describes ${Object.keys(content).join(', ')}`;
    const type = essence(r.contentType);
    const documented = Object.keys(content).find((range) => mediaTypeMatches(range, type));
    if (documented === undefined) return `Content-Type ${r.contentType} is not among the documented ${Object.keys(content).join(', ')}`;
    if (!isJson(type) || !content[documented]!['schema']) return undefined;
    const method = STANDARD_METHODS.includes(r.method.toLowerCase()) ? [r.method.toLowerCase()] : ['x-additional-operations', r.method];
    return this.checkJson(r, ['paths', entry.template, ...method, 'responses', key, 'content', documented, 'schema']);
  }

  /** Validates the JSON body against the schema at `pointer` in the document. */
  private async checkJson(r: ObservedResponse, pointer: string[]): Promise<string | undefined> {
    if (r.contentType === null || !isJson(essence(r.contentType))) return `expected a JSON body, got ${r.contentType ?? 'none'}`;
    let body: unknown;
    try {
      body = await r.readJson();
    } catch (err) {
      return `the body is not JSON: ${(err as Error).message}`;
    }
    const validate = this.validator(pointer);
    if (validate(body)) return undefined;
    const errors = this.ajv.errorsText(validate.errors, { dataVar: 'body', separator: '; ' });
    return `the body does not match ${pointer.join('/')}: ${errors}; body: ${JSON.stringify(body).slice(0, 500)}`;
  }

  private validator(pointer: string[]): ValidateFunction {
    const ref = `${DOCUMENT_ID}#/${pointer.map((t) => encodeURIComponent(t.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }
}

function pathEntry(template: string, item: Json): PathEntry {
  const multiSegment = new Set(((item['parameters'] ?? []) as Json[]).filter((p) => p['x-multi-segment'] === true).map((p) => p['name']));
  let parameters = 0;
  const pattern = template.split('/').slice(1).map((segment) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    if (name === undefined) return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    parameters++;
    // A multi-segment parameter takes the rest of the path, which may be empty.
    return multiSegment.has(name) ? '(?:/.*)?' : '/[^/]+';
  }).join('');
  return { template, regex: new RegExp(`^${pattern}$`), item, parameters };
}

function operationOf(item: Json, method: string): Json | undefined {
  const lower = method.toLowerCase();
  if (!STANDARD_METHODS.includes(lower)) return (item['x-additional-operations'] as Record<string, Json> | undefined)?.[method];
  // The router answers HEAD with the GET route.
  return (item[lower] ?? (lower === 'head' ? item['get'] : undefined)) as Json | undefined;
}

function essence(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

function isJson(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}

function mediaTypeMatches(range: string, type: string): boolean {
  const wanted = essence(range);
  if (wanted === '*/*' || wanted === type) return true;
  return wanted.endsWith('/*') && type.startsWith(wanted.slice(0, -1));
}

class OpenApiMismatchError extends Error {
  override readonly name = 'OpenApiMismatchError';
}

const INSTALLED = Symbol.for('edu-fileproxy.openapi-check');

/** A request path as the service decodes it; one that does not decode is kept as sent. */
function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Wraps globalThis.fetch (once per process) so that every answer of a service started by startService is checked. */
function installOpenApiCheck(): void {
  const global = globalThis as typeof globalThis & { [INSTALLED]?: true };
  if (global[INSTALLED]) return;
  global[INSTALLED] = true;
  const checker = new OpenApiResponseChecker(openApiDocument);
  const original = globalThis.fetch;
  const mismatches: string[] = [];

  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await original(input, init);
    const url = new URL(response.url || (input instanceof Request ? input.url : String(input)));
    if (!serviceOrigins.has(url.origin)) return response;
    let requestMethod = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    // A followed redirect was answered to a GET (the service redirects only GET /admin).
    if (response.redirected && requestMethod !== 'HEAD') requestMethod = 'GET';
    const sentKey = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get('x-webhook-key');
    if (sentKey !== null) noteSecret(sentKey);
    const davPath = /^\/dav\/[^/]+\/(.+)$/.exec(url.pathname)?.[1];
    if (davPath !== undefined) noteSharePath(safeDecode(davPath));

    let json: Promise<unknown> | undefined;
    const readJson = () => (json ??= response.clone().text().then((text) => JSON.parse(text) as unknown));
    const { operationId, problem } = await checker.check({
      method: requestMethod,
      path: url.pathname,
      status: response.status,
      contentType: response.headers.get('content-type'),
      contentLength: response.headers.get('content-length'),
      readJson,
    });
    if (problem !== undefined) {
      const message = `OpenAPI mismatch: ${requestMethod} ${url.pathname} answered ${response.status}: ${problem}`;
      mismatches.push(message);
      throw new OpenApiMismatchError(message);
    }
    if (operationId === 'revealWebhookClientKey' && response.status === 200) {
      const revealed = (await readJson()) as { api_key?: unknown };
      if (typeof revealed.api_key === 'string') noteSecret(revealed.api_key);
    }
    return response;
  };

  process.on('exit', () => {
    if (mismatches.length === 0) return;
    process.stderr.write(`\n${mismatches.length} answer(s) did not match the OpenAPI document:\n${mismatches.map((m) => `  ${m}`).join('\n')}\n`);
    process.exitCode = 1;
  });
}

installOpenApiCheck();
