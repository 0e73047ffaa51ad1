// Origins (`http://127.0.0.1:<port>`) of the services this test process runs
// with startService, so that test/support/openapi-check.ts knows which
// answers are the service's (and not Elasticsearch's or a fake server's).
export const serviceOrigins = new Set<string>();
