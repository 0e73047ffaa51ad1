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

  /** The headers added with addHeaders for a path (the server sets them before it routes the request). */
  headersFor(path: string): Record<string, string> {
    const segments = path.split('/').slice(1);
    const headers: Record<string, string> = {};
    for (const scope of this.scopes) {
      if (matchSegments(scope.segments, segments)) Object.assign(headers, scope.headers);
    }
    return headers;
  }

  /** The route for a request, or an HttpError (404 / 405) to answer with. */
  match(method: string, path: string): RouteMatch | HttpError {
    const segments = path.split('/').slice(1);
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

function matchSegments(pattern: string[], path: string[]): RouteParams | undefined {
  const params: RouteParams = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (p === '*') {
      params['*'] = path.slice(i).join('/');
      return params;
    }
    const actual = path[i];
    if (actual === undefined) return undefined;
    if (p.startsWith(':')) {
      if (actual === '') return undefined;
      params[p.slice(1)] = actual;
    } else if (p !== actual) {
      return undefined;
    }
  }
  return pattern.length === path.length ? params : undefined;
}
