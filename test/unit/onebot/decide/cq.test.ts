import { plainText, unescapeCq } from '../../../../shared/onebot/decide/cq';

test('unescapeCq undoes each escape once', () => {
  expect(unescapeCq('&#91;a&#93; &#44; &amp; b')).toBe('[a] , & b');
  // "&#91;" typed by a user arrives as "&amp;#91;" and must come back as the text "&#91;".
  expect(unescapeCq('&amp;#91;&amp;amp;')).toBe('&#91;&amp;');
  expect(unescapeCq('&lt; & #91;')).toBe('&lt; & #91;');
});

test.each([
  ['string: CQ codes dropped, text unescaped', 'hi [CQ:face,id=178]&#91;x&#93; [CQ:image,file=a&#44;b.png,url=https://x/y?a=1&amp;b=2]!', 'hi [x] !'],
  ['string without codes', '你好 😀', '你好 😀'],
  [
    'array: text segments joined, values as they are',
    [
      { type: 'text', data: { text: 'a &#91;' } },
      { type: 'at', data: { qq: '1' } },
      { type: 'text', data: { text: '[b]' } },
    ],
    'a &#91;[b]',
  ],
  ['one segment alone', { type: 'text', data: { text: 'solo' } }, 'solo'],
  ['array with odd members', [null, 5, { type: 'text' }, { type: 'text', data: { text: 7 } }, { type: 'text', data: { text: 'ok' } }], 'ok'],
  ['neither', 42, ''],
  ['missing', undefined, ''],
])('plainText of a %s', (_name, message, expected) => {
  expect(plainText(message)).toBe(expected);
});
