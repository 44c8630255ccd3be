import type Router from '@koa/router';
import type { AppDeps } from '../deps.js';
import { openApiDocument } from '../openapi/document.js';

/** GET /openapi.json: the API described from its own zod schemas; built once, open to all. */
export function openApiRoutes(router: Router, deps: Pick<AppDeps, 'version'>): void {
  const document = JSON.stringify(openApiDocument(deps.version));
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = document;
  });
}
