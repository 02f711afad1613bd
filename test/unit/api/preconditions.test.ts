import { ApiError } from '../../../shared/errors';
import { entityTags, ifMatchOf, onlyIfAbsent } from '../../../shared/api/preconditions';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return { code: (error as ApiError).code, path: ((error as ApiError).extra.details as Array<{ path: string }>)[0].path };
  }
  throw new Error('not refused');
};

test('If-Match is *, or a list of entity tags (empty elements and spaces allowed, weak tags kept: they never match strongly)', () => {
  expect(entityTags('If-Match', '*')).toBe('*');
  expect(entityTags('If-Match', ' * ')).toBe('*');
  expect(entityTags('If-Match', '"1-a"')).toEqual(['"1-a"']);
  expect(entityTags('If-Match', '"1-a", W/"2-b",,"" ,')).toEqual(['"1-a"', 'W/"2-b"', '""']);
});

test.each(['', ' ', ',', 'abc', '"open', '"a" "b"', '"a";"b"', '*, "a"', '"a\u0000"', '"with"quote"', 'w/"a"'])(
  'If-Match %j is a 400 naming the header',
  (value) => {
    expect(refusal(() => ifMatchOf({ 'if-match': value }))).toEqual({ code: 'invalid_request', path: 'headers.if-match' });
  },
);

test('update and delete take If-Match and refuse If-None-Match; absent is no condition', () => {
  expect(ifMatchOf({})).toBeUndefined();
  expect(ifMatchOf({ 'if-match': '"1-a"' })).toEqual(['"1-a"']);
  expect(refusal(() => ifMatchOf({ 'if-none-match': '*' }))).toEqual({ code: 'invalid_request', path: 'headers.if-none-match' });
});

test('create takes If-None-Match: * only, and never If-Match', () => {
  expect(onlyIfAbsent({})).toBe(false);
  expect(onlyIfAbsent({ 'if-none-match': '*' })).toBe(true);
  expect(refusal(() => onlyIfAbsent({ 'if-none-match': '"1-a"' }))).toEqual({ code: 'invalid_request', path: 'headers.if-none-match' });
  expect(refusal(() => onlyIfAbsent({ 'if-match': '*' }))).toEqual({ code: 'invalid_request', path: 'headers.if-match' });
});
