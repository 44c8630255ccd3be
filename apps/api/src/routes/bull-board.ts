import type { Middleware } from 'koa';
import type { AppDeps } from '../deps.js';

export const BULL_BOARD_PATH = '/admin/queues';

/**
 * Bull Board, BullMQ's own UI, at /admin/queues (app.ts puts adminAuth in front and keeps the JSON
 * body parser off it: the board parses its own bodies). The hub's queues (one per shard) are made on
 * first use (deps.readyHub), so the board gets them on its first request. Its retry buttons are off: BullMQ's
 * plain retry does not know the pipeline (a failed job would take its earlier failure as final);
 * retry from the dashboard or `POST /admin/jobs/{id}/retry`, which rejoin the conversation's line.
 *
 * The board's packages (its UI's templates and static files, a sixth of what the API loads: 0.4 s
 * of CPU) are imported on its first request, not when the API starts.
 */
export function bullBoard(deps: Pick<AppDeps, 'readyHub'>): Middleware {
  let plugin: Promise<Middleware> | undefined;
  return async (ctx, next) => {
    plugin ??= mountBoard(deps).catch((err: unknown) => {
      plugin = undefined; // the next request tries again
      throw err;
    });
    await (await plugin)(ctx, next);
  };
}

async function mountBoard(deps: Pick<AppDeps, 'readyHub'>): Promise<Middleware> {
  const [{ createBullBoard }, { BullMQAdapter }, { KoaAdapter }, { shards }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/koa'),
    deps.readyHub(),
  ]);
  const serverAdapter = new KoaAdapter().setBasePath(BULL_BOARD_PATH);
  // Every shard's queue; the board keys its queues by name, so with several each is
  // `shard<n>-inbound` (the adapter's `prefix` is prepended to the name).
  const queues = shards.map(
    (shard) => new BullMQAdapter(shard.queue, { allowRetries: false, prefix: shards.length > 1 ? `shard${shard.shard}-` : '' }),
  );
  createBullBoard({ queues, serverAdapter, options: { uiConfig: { boardTitle: 'Switchboard queues' } } });
  return serverAdapter.registerPlugin() as Middleware;
}
