import type { ChannelAdapter, DeliveryMeta, Inbound, InboundMessage, InboundRequest } from './channel.js';
import { DeliveryClient } from './http.js';
import { splitText } from './split-text.js';

/**
 * What every adapter shares: its hook's name and config, its own delivery pool, splitting at the
 * platform's length limit, and closing. A channel adds verification, parsing and delivery.
 */
export abstract class PlatformAdapter<Config> implements ChannelAdapter {
  abstract readonly type: ChannelAdapter['type'];
  /** The platform's limit on one message's text; `Infinity` sends a reply whole. */
  protected abstract readonly textLimit: number;
  protected readonly http = new DeliveryClient();

  /** @param name - The hook's name, used in error messages (never a secret). */
  constructor(
    readonly name: string,
    protected readonly config: Config,
  ) {}

  abstract receive(request: InboundRequest): Inbound;
  abstract deliverPart(message: InboundMessage, part: string, index: number, meta: DeliveryMeta): Promise<void>;

  split(text: string): string[] {
    return Number.isFinite(this.textLimit) ? splitText(text, this.textLimit) : [text];
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
