// Maps method + path to a handler. Paths are patterns of literal segments,
// `:name` parameters and an optional trailing `*` (the rest of the path).
import type { HttpExchange } from './exchange.js';
import { HttpError } from './http-error.js';

export type RouteParams = Record<string, string>;
export type RouteHandler = (ex: HttpExchange, params: RouteParams) => Promise<void> | void;

export interface RouteOptions {
  /** Largest accepted request body in bytes; routes without it (or streamBody) take no body. */
  bodyLimit?: number;
  /** The handler reads the body as a stream (`ex.bodyChunks()`), of any size. */
  streamBody?: boolean;
}

interface Route extends RouteOptions {
  method: string;
  pattern: string;
  segments: string[];
  handler: RouteHandler;
}

export interface RouteMatch extends RouteOptions {
  /** The pattern the route was added with (a label for logs and metrics, unlike the raw path). */
  pattern: string;
  handler: RouteHandler;
  params: RouteParams;
}

export class Router {
  private readonly routes: Route[] = [];
  private readonly scopes: { segments: string[]; headers: Readonly<Record<string, string>> }[] = [];

  add(method: string, pattern: string, handler: RouteHandler, options: RouteOptions = {}): void {
    this.routes.push({ method, pattern, segments: pattern.split('/').slice(1), handler, ...options });
  }

  /**
   * Headers that every answer to a path matching `pattern` carries, whatever the method and errors included
   * (the router's own 404 and 405 as well as the handler's answers).
   */
  addHeaders(pattern: string, headers: Readonly<Record<string, string>>): void {
    this.scopes.push({ segments: pattern.split('/').slice(1), headers });
  }

  /**
   * The route for a request, or an HttpError (404 / 405) to answer with; and the headers added with addHeaders for
   * its path, which every answer carries (the server sets them before it runs the handler).
   */
  resolve(method: string, path: string): { route: RouteMatch | HttpError; headers: Readonly<Record<string, string>> } {
    const segments = path.split('/').slice(1);
    return { route: this.match(method, path, segments), headers: this.headersFor(segments) };
  }

  private headersFor(segments: readonly string[]): Readonly<Record<string, string>> {
    let headers: Record<string, string> | undefined;
    for (const scope of this.scopes) {
      if (matchSegments(scope.segments, segments)) headers = { ...headers, ...scope.headers };
    }
    return headers ?? NO_HEADERS;
  }

  private match(method: string, path: string, segments: readonly string[]): RouteMatch | HttpError {
    const allowed: string[] = [];
    for (const route of this.routes) {
      const params = matchSegments(route.segments, segments);
      if (!params) continue;
      if (route.method === method || (method === 'HEAD' && route.method === 'GET')) {
        const { bodyLimit, streamBody } = route;
        return { pattern: route.pattern, handler: route.handler, params, ...(bodyLimit !== undefined ? { bodyLimit } : {}), ...(streamBody ? { streamBody } : {}) };
      }
      allowed.push(route.method);
    }
    if (allowed.length > 0) {
      return new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${path}`, { allow: allowed.join(', ') });
    }
    return new HttpError(404, 'not_found', `no endpoint at ${path}`);
  }
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** The parameters of `path` when it matches `pattern`; checked before anything is allocated (most routes do not match). */
function matchSegments(pattern: readonly string[], path: readonly string[]): RouteParams | undefined {
  const wildcard = pattern[pattern.length - 1] === '*';
  const fixed = wildcard ? pattern.length - 1 : pattern.length;
  if (wildcard ? path.length < fixed : path.length !== fixed) return undefined;
  for (let i = 0; i < fixed; i++) {
    const p = pattern[i]!;
    if (p.startsWith(':') ? path[i] === '' : p !== path[i]) return undefined;
  }
  const params: RouteParams = {};
  for (let i = 0; i < fixed; i++) {
    if (pattern[i]!.startsWith(':')) params[pattern[i]!.slice(1)] = path[i]!;
  }
  if (wildcard) params['*'] = path.slice(fixed).join('/');
  return params;
}
