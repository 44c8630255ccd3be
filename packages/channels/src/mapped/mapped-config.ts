import { Webhook } from 'standardwebhooks';
import { z } from 'zod';
import { filterSchema } from './match-filter.js';
import { templateSchema } from './render-template.js';
import { STRIPE_DEFAULT_TOLERANCE_SECONDS } from './verify-stripe-signature.js';

/** The longest a caller may be held for its reply (`deliver.wait`). */
export const MAX_WAIT_MS = 60_000;

/** A Standard Webhooks secret: `whsec_` and base64, as Svix shows it. */
export const standardWebhooksSecretSchema = z
  .string()
  .min(8)
  .refine(
    (secret) => {
      try {
        new Webhook(secret);
        return true;
      } catch {
        return false;
      }
    },
    { message: 'expected whsec_ followed by base64' },
  );

const headerName = z.string().regex(/^[A-Za-z0-9-]{1,100}$/, 'a header name');

/** How a delivery proves it comes from the sender; each scheme says where the delivery id is. */
export const verifySchema = z.discriminatedUnion('scheme', [
  /** As generic hooks: `Authorization: Bearer <token>` or `X-Hook-Token`; id: `Idempotency-Key`. */
  z.strictObject({ scheme: z.literal('token'), token: z.string().min(8) }),
  /** `X-Hub-Signature-256` under the webhook secret; id: `X-GitHub-Delivery`. */
  z.strictObject({ scheme: z.literal('github'), secret: z.string().min(8) }),
  /** `Stripe-Signature` with its timestamp; id: the event's `id`. */
  z.strictObject({
    scheme: z.literal('stripe'),
    secret: z.string().min(8),
    toleranceSeconds: z.int().min(1).max(3600).default(STRIPE_DEFAULT_TOLERANCE_SECONDS),
  }),
  /** `webhook-id` / `webhook-timestamp` / `webhook-signature` (Svix and others); id: `webhook-id`. */
  z.strictObject({ scheme: z.literal('standard-webhooks'), secret: standardWebhooksSecretSchema }),
  /** HMAC-SHA256 of the body in a header you name; id: the `idHeader`, when the sender has one. */
  z.strictObject({
    scheme: z.literal('hmac-sha256'),
    secret: z.string().min(8),
    header: headerName,
    prefix: z.string().max(32).default(''),
    encoding: z.enum(['hex', 'base64']).default('hex'),
    idHeader: headerName.optional(),
  }),
]);

export type VerifyConfig = z.infer<typeof verifySchema>;

/** `25s`, `1500ms` or a number of ms. */
const durationMs = z
  .union([z.int(), z.string().regex(/^\d{1,6}(ms|s)$/, 'a duration such as 25s or 1500ms')])
  .transform((value) =>
    typeof value === 'number' ? value : value.endsWith('ms') ? Number.parseInt(value, 10) : Number.parseInt(value, 10) * 1000,
  )
  .pipe(z.int().min(1).max(MAX_WAIT_MS));

/** The reply goes back to the caller: POSTed to `replyUrl`, and/or held for `wait`, else read at the job view. */
const callerDeliverySchema = z.strictObject({
  replyUrl: z.url({ protocol: /^https?$/ }).optional(),
  wait: durationMs.optional(),
});

/**
 * The reply goes out through another configured hook: `hook` names it, the other keys are that
 * channel's target (`channel`, `thread` for Slack; `chat` for Telegram), each may be a template.
 */
const hookDeliverySchema = z.object({ hook: z.string().min(1) }).catchall(z.union([z.string().min(1), z.number()]));

export const mappedConfigSchema = z.strictObject({
  verify: verifySchema,
  filter: filterSchema.optional(),
  /** The prompt, a Mustache template over the JSON payload. */
  template: templateSchema(),
  /** The conversation key, a Mustache template; without one, every delivery is a conversation of its own. */
  conversation: templateSchema().optional(),
  deliver: z.union([callerDeliverySchema, hookDeliverySchema]).default({}),
});

export type MappedConfig = z.infer<typeof mappedConfigSchema>;

type HookDelivery = z.infer<typeof hookDeliverySchema>;
type CallerDelivery = z.infer<typeof callerDeliverySchema>;

function namesHook(deliver: MappedConfig['deliver']): deliver is HookDelivery {
  return typeof (deliver as Partial<HookDelivery>).hook === 'string';
}

/** The `deliver` entry, when it names another hook: that hook and the target, templates unrendered. */
export function hookDelivery(config: MappedConfig): { hook: string; target: Record<string, string | number> } | null {
  if (!namesHook(config.deliver)) return null;
  const { hook, ...target } = config.deliver;
  return { hook, target };
}

/** The `deliver` entry, when the reply goes back to the caller (`replyUrl`, `wait`, or neither). */
export function callerDelivery(config: MappedConfig): CallerDelivery | null {
  return namesHook(config.deliver) ? null : config.deliver;
}
