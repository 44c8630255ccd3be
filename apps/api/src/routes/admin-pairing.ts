import type Router from '@koa/router';
import { notFound } from '@switchboard/protocol';
import { isPairingCode } from '@switchboard/state';
import type { AppDeps } from '../deps.js';
import { findHook } from '../services/hook-service.js';

/**
 * The operator's side of `access.dm: "pairing"` (behind the admin keys, as all of /admin): the
 * requests waiting, approve or deny one by its code, and revoke a person approved before. What
 * is decided is in Redis (state/access-store.ts), so every API process acts on it at once.
 */
export function pairingRoutes(router: Router, deps: Pick<AppDeps, 'access' | 'hooks'>): void {
  router.get('/admin/pairing', async (ctx) => {
    const now = Date.now();
    const pending = await deps.access.pending();
    ctx.body = {
      object: 'list',
      data: pending.map((request) => ({
        code: request.code,
        hook: request.hook,
        user: request.user,
        name: request.name,
        created_at: Math.floor(request.createdAt / 1000),
        age_seconds: Math.max(0, Math.floor((now - request.createdAt) / 1000)),
      })),
    };
  });

  for (const decision of ['approve', 'deny'] as const) {
    router.post(`/admin/pairing/:code/${decision}`, async (ctx) => {
      const code = (ctx.params.code ?? '').toUpperCase();
      const decided = isPairingCode(code) ? await deps.access.decide(code, decision === 'approve') : null;
      if (!decided) throw notFound(`No pairing request is pending with the code '${code.slice(0, 16)}'.`, 'pairing_not_found');
      ctx.state.log = { hook: decided.hook, pairing: decision };
      ctx.body = { code, hook: decided.hook, user: decided.user, status: decision === 'approve' ? 'approved' : 'denied' };
    });
  }

  router.delete('/admin/hooks/:name/users/:id', async (ctx) => {
    const hook = findHook(deps, ctx.params.name);
    const user = ctx.params.id ?? '';
    if (!(await deps.access.revoke(hook.name, user))) {
      throw notFound(`The hook '${hook.name}' has no approved user '${user.slice(0, 256)}'.`, 'user_not_found');
    }
    ctx.state.log = { hook: hook.name, revoked: true };
    ctx.body = { hook: hook.name, user, status: 'revoked' };
  });
}
