/**
 * Telegram's HTML parse mode as the Bot API documents it: only its tags (b, strong, i, em, u,
 * ins, s, strike, del, span class="tg-spoiler", tg-spoiler, a href, code, pre, blockquote,
 * tg-emoji), properly nested; `<`, `>` and `&` outside tags escaped, and only the named entities
 * `&lt;` `&gt;` `&amp;` `&quot;` or numeric ones. Anything else is the error Telegram answers:
 * "Bad Request: can't parse entities: …". Returns the visible text, whose length Telegram limits.
 */
const TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'span',
  'tg-spoiler',
  'a',
  'code',
  'pre',
  'blockquote',
  'tg-emoji',
]);
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

export class EntityError extends Error {}

export function visibleTelegramHtml(html: string): string {
  const open: string[] = [];
  let visible = '';
  const pattern = /<(\/?)([a-z-]+)((?:\s+[a-z-]+="[^"<>]*")*)\s*>|&(#x[0-9a-f]+|#\d+|[a-z]+);|[<>&]/gi;
  let at = 0;
  for (const match of html.matchAll(pattern)) {
    visible += html.slice(at, match.index);
    at = match.index + match[0].length;
    const [whole, closing, tag, , entity] = match;
    if (whole === '<' || whole === '>' || whole === '&') {
      throw new EntityError(`Unsupported start tag or unescaped character at byte offset ${match.index}`);
    }
    if (entity !== undefined) {
      const name = entity.toLowerCase();
      if (name[0] === '#')
        visible += String.fromCodePoint(name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1)));
      else if (ENTITIES[name]) visible += ENTITIES[name];
      else throw new EntityError(`Unknown entity "${entity}" at byte offset ${match.index}`);
      continue;
    }
    const name = tag!.toLowerCase();
    if (!TAGS.has(name)) throw new EntityError(`Unsupported start tag "${name}" at byte offset ${match.index}`);
    if (!closing) {
      open.push(name);
      continue;
    }
    if (open.pop() !== name)
      throw new EntityError(`Unmatched end tag at byte offset ${match.index}, expected "</${open.at(-1) ?? ''}>"`);
  }
  if (open.length) throw new EntityError(`Can't find end tag corresponding to start tag "${open.at(-1)}"`);
  return visible + html.slice(at);
}
