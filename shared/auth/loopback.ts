import { isIPv4 } from 'node:net';

/** Whether an address is this machine: 127.0.0.0/8, ::1, or IPv4-mapped 127.x. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const ip = address.toLowerCase().replace(/^::ffff:/, '');
  if (ip === '::1' || ip === '0:0:0:0:0:0:0:1') return true;
  return isIPv4(ip) && ip.startsWith('127.');
}
