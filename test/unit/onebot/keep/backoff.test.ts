import { backoffSeconds, secondsBeforeReceive } from '../../../../shared/onebot/keep/backoff';

test('the backoff doubles from a minute per receive up to SQS 12-hour maximum; a missing receive count counts as the first', () => {
  expect([1, 2, 3, 4].map(backoffSeconds)).toEqual([60, 120, 240, 480]);
  expect(backoffSeconds(11)).toBe(43_200);
  expect(backoffSeconds(100)).toBe(43_200);
  expect([0, Number.NaN, 1.5].map(backoffSeconds)).toEqual([60, 60, 60]);
  expect(secondsBeforeReceive(1)).toBe(0);
  expect(secondsBeforeReceive(4)).toBe(60 + 120 + 240);
});
