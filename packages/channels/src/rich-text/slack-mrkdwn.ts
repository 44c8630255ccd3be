import { lexMarkdown, type MarkdownStyle, renderBlocks } from './markdown-tokens.js';

/** Slack's mrkdwn control characters; everything else is literal. */
export function escapeSlackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const style: MarkdownStyle = {
  escape: escapeSlackText,
  bold: (inner) => `*${inner}*`,
  italic: (inner) => `_${inner}_`,
  strike: (inner) => `~${inner}~`,
  code: (text) => `\`${escapeSlackText(text)}\``,
  // `|` separates a link's parts in mrkdwn: a URL holding one is percent-encoded, a label's is replaced.
  link: (href, inner) => `<${escapeSlackText(href).replace(/\|/g, '%7C')}|${inner.replace(/\|/g, '¦')}>`,
  codeBlock: (text) => `\`\`\`\n${escapeSlackText(text)}\n\`\`\``,
  quote: (inner) => inner.replace(/^/gm, '> '),
  heading: (inner) => `*${inner}*`,
  table: (raw) => `\`\`\`\n${escapeSlackText(raw)}\n\`\`\``,
};

/**
 * The model's Markdown as Slack mrkdwn (`chat.postMessage` / `chat.update` text): `*bold*`,
 * `_italic_`, `~strike~`, code spans and blocks, `<url|text>` links, quoted lines; headings
 * become bold, lists get bullets or numbers. `&`, `<` and `>` are escaped, so nothing in the text
 * becomes a mention or a link it was not.
 */
export function markdownToSlackMrkdwn(markdown: string): string {
  return renderBlocks(lexMarkdown(markdown), style);
}
