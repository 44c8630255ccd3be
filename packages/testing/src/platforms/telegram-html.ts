import type { MessageEntity } from '@grammyjs/types';

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

/** The visible text of Telegram HTML (see `parseTelegramHtml`). */
export function visibleTelegramHtml(html: string): string {
  return parseTelegramHtml(html).text;
}

/** The entity each tag makes (https://core.telegram.org/bots/api#formatting-options). */
const ENTITY_OF: Record<string, MessageEntity['type']> = {
  b: 'bold',
  strong: 'bold',
  i: 'italic',
  em: 'italic',
  u: 'underline',
  ins: 'underline',
  s: 'strikethrough',
  strike: 'strikethrough',
  del: 'strikethrough',
  span: 'spoiler',
  'tg-spoiler': 'spoiler',
  a: 'text_link',
  code: 'code',
  pre: 'pre',
  blockquote: 'blockquote',
  'tg-emoji': 'custom_emoji',
};

/**
 * The text a message shows and its `entities`, as the Bot API reports them in the sent Message:
 * offsets and lengths in UTF-16 code units, `text_link` with its `url`, `pre` with its
 * `language` (a `<code class="language-…">` inside `<pre>` is part of the pre, not an entity of
 * its own), empty entities left out, ordered by offset.
 */
export function parseTelegramHtml(html: string): { text: string; entities: MessageEntity[] } {
  const open: { name: string; attributes: string; offset: number }[] = [];
  const entities: MessageEntity[] = [];
  let visible = '';
  const pattern = /<(\/?)([a-z-]+)((?:\s+[a-z-]+="[^"<>]*")*)\s*>|&(#x[0-9a-f]+|#\d+|[a-z]+);|[<>&]/gi;
  let at = 0;
  for (const match of html.matchAll(pattern)) {
    visible += html.slice(at, match.index);
    at = match.index + match[0].length;
    const [whole, closing, tag, attributes = '', entity] = match;
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
      open.push({ name, attributes, offset: visible.length });
      continue;
    }
    const started = open.pop();
    if (started?.name !== name)
      throw new EntityError(`Unmatched end tag at byte offset ${match.index}, expected "</${open.at(-1)?.name ?? ''}>"`);
    const made = entityOf(started, visible.length - started.offset, open.at(-1));
    if (made) entities.push(made);
  }
  if (open.length) throw new EntityError(`Can't find end tag corresponding to start tag "${open.at(-1)!.name}"`);
  const text = visible + html.slice(at);
  // `<pre><code class="language-x">` is one pre entity with its language, not two.
  const merged = entities.filter(
    (entity) =>
      entity.type !== 'pre' || 'language' in entity || !entities.some((other) => other !== entity && same(other, entity)),
  );
  return { text, entities: merged.sort((a, b) => a.offset - b.offset || b.length - a.length) };
}

function attribute(attributes: string, name: string): string | undefined {
  return new RegExp(`\\s${name}="([^"]*)"`, 'i').exec(attributes)?.[1];
}

function same(a: MessageEntity, b: MessageEntity): boolean {
  return a.type === b.type && a.offset === b.offset && a.length === b.length;
}

function entityOf(
  tag: { name: string; attributes: string; offset: number },
  length: number,
  parent: { name: string } | undefined,
): MessageEntity | undefined {
  if (length === 0) return undefined;
  const { offset } = tag;
  switch (ENTITY_OF[tag.name]) {
    case 'text_link':
      return { type: 'text_link', offset, length, url: attribute(tag.attributes, 'href') ?? '' };
    case 'custom_emoji':
      return { type: 'custom_emoji', offset, length, custom_emoji_id: attribute(tag.attributes, 'emoji-id') ?? '' };
    case 'pre':
      return { type: 'pre', offset, length };
    case 'code': {
      const language = /language-(\S+)/.exec(attribute(tag.attributes, 'class') ?? '')?.[1];
      if (parent?.name === 'pre') return { type: 'pre', offset, length, ...(language ? { language } : {}) };
      return { type: 'code', offset, length };
    }
    case 'blockquote':
      return /\sexpandable\b/.test(tag.attributes)
        ? { type: 'expandable_blockquote', offset, length }
        : { type: 'blockquote', offset, length };
    case undefined:
      return undefined;
    default:
      return { type: ENTITY_OF[tag.name] as 'bold', offset, length };
  }
}
