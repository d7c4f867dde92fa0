// html`…`: every interpolated value is escaped, markup made by html`…` is kept as is.
import { describe, expect, test } from '@jest/globals';
import { escapeHtml, html } from '../../../tracker/dashboard/html.js';

describe('html', () => {
  test('escapes text in element content and in quoted attributes', () => {
    const name = `<script>alert("x")</script> & 'quotes'`;
    expect(html`<p title="${name}">${name}</p>`.text).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;</p>',
    );
  });

  test('keeps nested markup, escapes only once, and joins lists', () => {
    const items = ['a<b', 'c&d'].map((v) => html`<li>${v}</li>`);
    expect(html`<ul>${items}</ul>`.text).toBe('<ul><li>a&lt;b</li><li>c&amp;d</li></ul>');
    expect(html`${html`${'&amp;'}`}`.text).toBe('&amp;amp;');
  });

  test('renders nothing for null, undefined and false, and numbers as text', () => {
    expect(html`[${null}${undefined}${false}${0}${1.5}]`.text).toBe('[01.5]');
  });

  test('a plain string that looks like markup is still text', () => {
    const fake = { text: '<b>not markup</b>' } as unknown as string;
    expect(html`${fake}`.text).toBe(escapeHtml(String(fake)));
    expect(html`${fake}`.text).not.toContain('<b>');
  });
});
