import { describe, expect, it } from 'vitest';
import { markdownToTelegramHtml } from './telegram-html.js';

describe('markdownToTelegramHtml', () => {
  it('keeps bold, italic, strikethrough, inline code and links', () => {
    expect(markdownToTelegramHtml('**Bold**, _it_, ~~gone~~, `x < y` and [docs](https://example.com/a?b=1&c=2)')).toBe(
      '<b>Bold</b>, <i>it</i>, <s>gone</s>, <code>x &lt; y</code> and <a href="https://example.com/a?b=1&amp;c=2">docs</a>',
    );
  });

  it('keeps a code block with its language, its text escaped', () => {
    expect(markdownToTelegramHtml('```ts\nif (a < b && c) {}\n```')).toBe(
      '<pre><code class="language-ts">if (a &lt; b &amp;&amp; c) {}</code></pre>',
    );
  });

  it('writes lists with bullets and numbers, nested items indented', () => {
    expect(markdownToTelegramHtml('- one\n  - inner\n- two\n\n3. three\n4. four')).toBe(
      '• one\n  • inner\n• two\n\n3. three\n4. four',
    );
  });

  it('shows HTML a user or the model typed as text, never as markup', () => {
    expect(markdownToTelegramHtml('<b>not bold</b> & <script>x</script>')).toBe(
      '&lt;b&gt;not bold&lt;/b&gt; &amp; &lt;script&gt;x&lt;/script&gt;',
    );
  });

  it('leaves a link that is not to the web as its text', () => {
    expect(markdownToTelegramHtml('[click](javascript:alert(1))')).toBe('click');
  });

  it('renders half-written Markdown of a reply still streaming without breaking the message', () => {
    expect(markdownToTelegramHtml('Here **is the sta')).toBe('Here **is the sta');
    expect(markdownToTelegramHtml('```py\nprint(1')).toBe('<pre><code class="language-py">print(1</code></pre>');
  });
});
