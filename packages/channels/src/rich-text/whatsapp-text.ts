import { lexMarkdown, type MarkdownStyle, renderBlocks } from './markdown-tokens.js';

/*
 * WhatsApp's own formatting in a text message's body, as Meta documents it ("Formatting in text
 * messages", https://developers.facebook.com/docs/whatsapp/cloud-api/messages/text-messages, and
 * WhatsApp's FAQ "How to format your messages"): *bold*, _italic_, ~strikethrough~ and
 * ```monospace```, `> ` quotes. There are no links with labels and no escapes: a link shows its
 * label and its address, and text is passed on as written.
 */
const style: MarkdownStyle = {
  escape: (text) => text,
  bold: (inner) => `*${inner}*`,
  italic: (inner) => `_${inner}_`,
  strike: (inner) => `~${inner}~`,
  code: (text) => `\`\`\`${text}\`\`\``,
  link: (href, inner) => (inner === href || inner === '' ? href : `${inner} (${href})`),
  codeBlock: (text) => `\`\`\`\n${text}\n\`\`\``,
  quote: (inner) => inner.replace(/^/gm, '> '),
  heading: (inner) => `*${inner}*`,
  table: (raw) => `\`\`\`\n${raw}\n\`\`\``,
};

/**
 * The model's Markdown in WhatsApp's formatting: `**bold**` → `*bold*`, `*italic*` → `_italic_`,
 * `~~strike~~` → `~strike~`, code in triple backticks, `[label](url)` → `label (url)`; headings
 * become bold, lists get bullets or numbers, tables keep their source in a monospace block.
 */
export function markdownToWhatsApp(markdown: string): string {
  return renderBlocks(lexMarkdown(markdown), style);
}
