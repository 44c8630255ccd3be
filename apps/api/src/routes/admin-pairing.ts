import type Router from '@koa/router';
import { type InboundMessage, inboundMessageSchema, notFound } from '@switchboard/protocol';
import { isPairingCode } from '@switchboard/state';
import type { AppDeps } from '../deps.js';
import { type AcceptDeps, acceptMessage, findHook } from '../services/hook-service.js';

/**
 * The operator's side of `access.dm: "pairing"` (behind the admin keys, as all of /admin): the
 * requests waiting, approve or deny one by its code, and revoke a person approved before. What
 * is decided is in Redis (state/access-store.ts), so every API process acts on it at once.
 */
export function pairingRoutes(router: Router, deps: AcceptDeps & Pick<AppDeps, 'access' | 'hooks'>): void {
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
      // The person hears they may write now: queued like any reply, once (keyed by the code).
      const notice = decision === 'approve' ? readNotice(decided.notice) : null;
      if (notice && deps.hooks.has(decided.hook)) {
        await acceptMessage(deps, decided.hook, { ...notice, dedupeKey: `pairing-approved:${code}` });
      }
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

/** The message stored with a request for its approval (access-gate.ts wrote it), or null when unreadable. */
function readNotice(json: string | null): InboundMessage | null {
  if (!json) return null;
  try {
    const parsed = inboundMessageSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
