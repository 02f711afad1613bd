import { isLoopback } from '../../../shared/auth/loopback';

test.each(['127.0.0.1', '127.255.3.9', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::FFFF:127.1.2.3'])('%s is loopback', (ip) => {
  expect(isLoopback(ip)).toBe(true);
});

test.each([undefined, '', '10.0.0.1', '192.168.1.2', '128.0.0.1', '::ffff:10.0.0.1', '::2', 'fe80::1', '127.0.0.1.evil', 'localhost', '0.0.0.0'])(
  '%s is not loopback',
  (ip) => {
    expect(isLoopback(ip)).toBe(false);
  },
);
