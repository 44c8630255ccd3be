import { lexMarkdown, type MarkdownStyle, renderBlocks } from './markdown-tokens.js';

/** Telegram's HTML needs exactly these three escaped (and `"` inside attributes). */
export function escapeTelegramHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const style: MarkdownStyle = {
  escape: escapeTelegramHtml,
  bold: (inner) => `<b>${inner}</b>`,
  italic: (inner) => `<i>${inner}</i>`,
  strike: (inner) => `<s>${inner}</s>`,
  code: (text) => `<code>${escapeTelegramHtml(text)}</code>`,
  link: (href, inner) => `<a href="${escapeTelegramHtml(href).replace(/"/g, '&quot;')}">${inner}</a>`,
  codeBlock: (text, lang) =>
    lang
      ? `<pre><code class="language-${lang}">${escapeTelegramHtml(text)}</code></pre>`
      : `<pre>${escapeTelegramHtml(text)}</pre>`,
  quote: (inner) => `<blockquote>${inner}</blockquote>`,
  heading: (inner) => `<b>${inner}</b>`,
  table: (raw) => `<pre>${escapeTelegramHtml(raw)}</pre>`,
};

/**
 * The model's Markdown as Telegram HTML (`parse_mode: "HTML"`): bold, italic, strikethrough,
 * inline code, code blocks with their language, links, quotes; headings become bold, lists get
 * bullets or numbers, tables keep their source in a monospace block. The visible text is never
 * longer than the Markdown, so a piece that fits Telegram's 4096 characters as Markdown fits
 * rendered too.
 */
export function markdownToTelegramHtml(markdown: string): string {
  return renderBlocks(lexMarkdown(markdown), style);
}
