import { GO_CQHTTP_RESENDS, senderOf } from '../../../shared/onebot/senders';

test.each([
  [
    { 'user-agent': 'CQHttp/4.15.0', 'content-type': 'application/json' },
    { name: 'go-cqhttp', resends: GO_CQHTTP_RESENDS, readsAnswer: true },
  ],
  [{ 'content-type': 'application/json; charset=utf-8' }, { name: 'Lagrange.OneBot', readsAnswer: false }],
  // NapCat posts with http.request, which sets no User-Agent.
  [{ 'content-type': 'application/json' }, { name: 'other', readsAnswer: true }],
  // LLOneBot posts with Node's fetch, whose User-Agent is `node`.
  [
    { 'user-agent': 'node', 'content-type': 'application/json' },
    { name: 'LLOneBot', readsAnswer: true },
  ],
])('senderOf(%j)', (headers, sender) => {
  expect(senderOf(headers)).toEqual(sender);
});
