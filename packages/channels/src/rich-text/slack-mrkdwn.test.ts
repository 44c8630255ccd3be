import { describe, expect, it } from 'vitest';
import { markdownToSlackMrkdwn } from './slack-mrkdwn.js';

describe('markdownToSlackMrkdwn', () => {
  it('turns Markdown emphasis, code and links into mrkdwn', () => {
    expect(markdownToSlackMrkdwn('**Bold**, _it_, ~~gone~~, `a<b` and [docs](https://example.com/?a=1&b=2)')).toBe(
      '*Bold*, _it_, ~gone~, `a&lt;b` and <https://example.com/?a=1&amp;b=2|docs>',
    );
  });

  it('keeps code blocks and quotes, and makes headings bold', () => {
    expect(markdownToSlackMrkdwn('# Plan\n\n```js\nx => x > 1\n```\n\n> said\n> twice')).toBe(
      '*Plan*\n\n```\nx =&gt; x &gt; 1\n```\n\n> said\n> twice',
    );
  });

  it('escapes what would become a mention or a link', () => {
    expect(markdownToSlackMrkdwn('<!channel> and <@U123> & co')).toBe('&lt;!channel&gt; and &lt;@U123&gt; &amp; co');
  });
});
