import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { Middleware } from 'koa';
import type { AppDeps } from '../deps.js';

export const BULL_BOARD_PATH = '/admin/queues';

/**
 * Bull Board, BullMQ's own UI, at /admin/queues (app.ts puts adminAuth in front and keeps the JSON
 * body parser off it: the board parses its own bodies). The hub's queues (one per shard) are made on
 * first use (deps.readyHub), so the board gets them on its first request. Its retry buttons are off: BullMQ's
 * plain retry does not know the pipeline (a failed job would take its earlier failure as final);
 * retry from the dashboard or `POST /admin/jobs/{id}/retry`, which rejoin the conversation's line.
 */
export function bullBoard(deps: Pick<AppDeps, 'readyHub'>): Middleware {
  const serverAdapter = new KoaAdapter().setBasePath(BULL_BOARD_PATH);
  const board = createBullBoard({ queues: [], serverAdapter, options: { uiConfig: { boardTitle: 'Switchboard queues' } } });
  const plugin = serverAdapter.registerPlugin() as Middleware;
  let added = false;
  return async (ctx, next) => {
    if (!added) {
      const { shards } = await deps.readyHub();
      // Every shard's queue; the board keys its queues by name, so with several each is
      // `shard<n>-inbound` (the adapter's `prefix` is prepended to the name).
      for (const shard of shards) {
        const prefix = shards.length > 1 ? `shard${shard.shard}-` : '';
        board.addQueue(new BullMQAdapter(shard.queue, { allowRetries: false, prefix }));
      }
      added = true;
    }
    await plugin(ctx, next);
  };
}
