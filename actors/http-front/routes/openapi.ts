// GET /openapi.json: the OpenAPI 3.1 description of every endpoint.
import type { Router } from '../../../src/http/router.js';
import { openApiDocument } from '../../../src/openapi/document.js';

export function registerOpenApiRoutes(router: Router): void {
  const body = JSON.stringify(openApiDocument);
  router.add('GET', '/openapi.json', (ex) => {
    ex.send(200, body, { 'content-type': 'application/json', 'cache-control': 'no-cache' });
  });
}
