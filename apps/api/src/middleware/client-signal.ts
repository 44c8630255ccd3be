import type { Context } from 'koa';

/** An AbortSignal that fires when the client hangs up before the response is complete. */
export function clientSignal(ctx: Context): AbortSignal {
  const controller = new AbortController();
  const res = ctx.res;
  const onClose = () => {
    if (!res.writableFinished) controller.abort(new Error('client closed the connection'));
  };
  res.once('close', onClose);
  return controller.signal;
}
