import { readFileSync } from 'node:fs';
import type Router from '@koa/router';
import { notFound } from '@switchboard/protocol';
import type { Context } from 'koa';

/** The dashboard's files (apps/api/dashboard: plain HTML, ES modules and CSS, no build step). */
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'charts.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

/**
 * Only this origin's scripts, styles and fetches; no inline script, no framing, no forms posted
 * elsewhere. The page fetches its data from /admin/* with the admin key the operator types in.
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * GET /dashboard: the operator's live view. The page itself is open and holds no data; it asks
 * for an admin key, keeps it in the tab's sessionStorage and sends it as a Bearer header on every
 * /admin call (see dashboard/app.js). Files are read once, at start-up, and served from memory.
 */
export function dashboardRoutes(router: Router): void {
  const dir = new URL('../../dashboard/', import.meta.url);
  const files = new Map(Object.entries(FILES).map(([name, type]) => [name, { type, body: readFileSync(new URL(name, dir)) }]));

  const serve = (ctx: Context, name: string) => {
    const file = files.get(name);
    if (!file) throw notFound(`There is no dashboard file '${name}'.`);
    ctx.set('Content-Security-Policy', DASHBOARD_CSP);
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = file.type;
    ctx.body = file.body;
  };
  router.get('/dashboard', (ctx) => serve(ctx, 'index.html'));
  router.get('/dashboard/:file', (ctx) => serve(ctx, ctx.params.file ?? ''));
}
