import { Lexer, type Token, type Tokens } from 'marked';

/**
 * The model's Markdown as tokens (CommonMark + GFM, by `marked`), and a small walker each
 * platform's renderer fills in. Raw HTML in the Markdown is never passed through: renderers show
 * it as text, so nothing a user or a model typed becomes markup that breaks a message.
 */
export function lexMarkdown(markdown: string): Token[] {
  return Lexer.lex(markdown, { gfm: true, breaks: false });
}

/** How one platform writes the things Markdown can say; text given to it is already escaped where needed. */
export interface MarkdownStyle {
  escape(text: string): string;
  bold(inner: string): string;
  italic(inner: string): string;
  strike(inner: string): string;
  code(text: string): string;
  link(href: string, inner: string): string;
  codeBlock(text: string, lang: string): string;
  quote(inner: string): string;
  heading(inner: string): string;
  /** A table, given its source rows. */
  table(raw: string): string;
}

/** Renders block tokens, blocks separated by a blank line. */
export function renderBlocks(tokens: readonly Token[], style: MarkdownStyle): string {
  return tokens
    .map((token) => renderBlock(token, style))
    .filter((block) => block !== '')
    .join('\n\n');
}

function renderBlock(token: Token, style: MarkdownStyle): string {
  switch (token.type) {
    case 'space':
    case 'def':
      return '';
    case 'paragraph':
      return renderInline((token as Tokens.Paragraph).tokens, style);
    case 'heading':
      return style.heading(renderInline((token as Tokens.Heading).tokens, style));
    case 'code': {
      const code = token as Tokens.Code;
      const lang = /^[\w+#.-]{1,20}$/.test(code.lang ?? '') ? code.lang! : '';
      return style.codeBlock(code.text, lang);
    }
    case 'blockquote':
      return style.quote(renderBlocks((token as Tokens.Blockquote).tokens, style));
    case 'list':
      return renderList(token as Tokens.List, style);
    case 'table':
      return style.table(token.raw.trim());
    case 'hr':
      return '———';
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? renderInline(text.tokens, style) : style.escape(text.text);
    }
    default:
      // html blocks and anything a later marked adds: shown as the text it is.
      return style.escape(token.raw.trim());
  }
}

function renderList(list: Tokens.List, style: MarkdownStyle): string {
  const start = typeof list.start === 'number' ? list.start : 1;
  return list.items
    .map((item, i) => {
      const bullet = list.ordered ? `${start + i}. ` : '• ';
      const check = item.task ? (item.checked ? '☑ ' : '☐ ') : '';
      const body = item.tokens
        .filter((token) => token.type !== 'checkbox')
        .map((token) => renderBlock(token, style))
        .filter((block) => block !== '')
        .join('\n');
      // Nested lines line up under the item's text.
      return `${bullet}${check}${body.replace(/\n/g, `\n${' '.repeat(bullet.length)}`)}`;
    })
    .join('\n');
}

export function renderInline(tokens: readonly Token[] | undefined, style: MarkdownStyle): string {
  return (tokens ?? []).map((token) => renderSpan(token, style)).join('');
}

function renderSpan(token: Token, style: MarkdownStyle): string {
  switch (token.type) {
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? renderInline(text.tokens, style) : style.escape(decodeEntities(text.text));
    }
    case 'escape':
      return style.escape((token as Tokens.Escape).text);
    case 'strong':
      return style.bold(renderInline((token as Tokens.Strong).tokens, style));
    case 'em':
      return style.italic(renderInline((token as Tokens.Em).tokens, style));
    case 'del':
      return style.strike(renderInline((token as Tokens.Del).tokens, style));
    case 'codespan':
      return style.code((token as Tokens.Codespan).text);
    case 'br':
      return '\n';
    case 'link': {
      const link = token as Tokens.Link;
      const inner = renderInline(link.tokens, style);
      return isWebLink(link.href) ? style.link(link.href, inner) : inner;
    }
    case 'image': {
      const image = token as Tokens.Image;
      const alt = style.escape(image.text || image.href);
      return isWebLink(image.href) ? style.link(image.href, alt) : alt;
    }
    default:
      // Inline HTML (`<b>`, `<script>`…) and anything unknown: literal text.
      return style.escape(token.raw);
  }
}

/** Only web and mail links become links; `javascript:` and the like stay text. */
function isWebLink(href: string): boolean {
  return /^(https?:\/\/|mailto:)/i.test(href);
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** `&amp;` and friends as the characters they stand for: the platform's own escaping follows. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (entity, name: string) => {
    if (name[0] !== '#') return NAMED[name.toLowerCase()] ?? entity;
    const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : entity;
  });
}
