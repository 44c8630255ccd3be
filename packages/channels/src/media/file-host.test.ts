import { describe, expect, it } from 'vitest';
import { WHATSAPP_FILE_DOMAINS } from '../whatsapp/whatsapp-media.js';
import { platformFileHost } from './file-host.js';

const GRAPH = 'https://graph.facebook.com';

describe('platformFileHost: where WhatsApp’s access token may go with a media download', () => {
  it("takes Meta's HTTPS media host and the Graph API's own", () => {
    const lookaside = 'https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1&ext=2&hash=3';
    expect(platformFileHost(lookaside, GRAPH, WHATSAPP_FILE_DOMAINS)).toBe(true);
    expect(platformFileHost('https://graph.facebook.com/v23.0/1', GRAPH, WHATSAPP_FILE_DOMAINS)).toBe(true);
  });

  it('refuses another host, a look-alike, plain HTTP and a URL with credentials', () => {
    for (const url of [
      'https://attacker.example/whatsapp_business/attachments/?mid=1',
      'https://lookaside.fbsbx.com.attacker.example/x',
      'https://notfbsbx.com/x',
      'http://lookaside.fbsbx.com/x',
      'https://me:pw@lookaside.fbsbx.com/x',
    ]) {
      expect(platformFileHost(url, GRAPH, WHATSAPP_FILE_DOMAINS), url).toBe(false);
    }
  });
});
