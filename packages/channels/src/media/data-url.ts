import { MediaGoneError } from './media-location.js';

/** The bytes of a `data:` URL (RFC 2397): base64, or percent-encoded text. */
export function decodeDataUrl(url: string): Buffer {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || comma < 0) throw new MediaGoneError('not a data: URL');
  const meta = url.slice(5, comma);
  const payload = url.slice(comma + 1);
  if (/;base64$/i.test(meta)) return Buffer.from(payload, 'base64');
  try {
    return Buffer.from(decodeURIComponent(payload), 'utf8');
  } catch {
    throw new MediaGoneError('the data: URL is not valid percent-encoding');
  }
}
