import { describe, expect, it } from 'vitest';
import { isPrivateAddress, parseWebhookUrl } from './address.ts';
import { backoffMs } from './dispatcher.ts';

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['10.0.0.1', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['fc00::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['0:0:0:0:0:ffff:a00:1', true],
    ['[::1]', true],
    ['8.8.8.8', false],
    ['172.32.0.1', false],
    ['172.15.255.255', false],
    ['2001:db8::1', false],
    ['::ffff:8.8.8.8', false],
    ['example.com', false],
  ])('%s: %s', (ip, expected) => expect(isPrivateAddress(ip)).toBe(expected));
});

describe('parseWebhookUrl', () => {
  it('takes http and https only', () => {
    expect(parseWebhookUrl('https://example.com/hook')).toBeInstanceOf(URL);
    expect(parseWebhookUrl('http://example.com:8080/hook?x=1')).toBeInstanceOf(URL);
    expect(parseWebhookUrl('ftp://example.com/')).toMatch(/only http and https/);
    expect(parseWebhookUrl('file:///etc/passwd')).toMatch(/only http and https/);
    expect(parseWebhookUrl('example.com')).toMatch(/not a URL/);
  });
});

describe('backoffMs', () => {
  it('starts at 1 s and doubles up to the maximum', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, 3600))).toEqual([1000, 2000, 4000, 8000, 16000, 32000]);
    expect(backoffMs(13, 3600)).toBe(3_600_000);
    expect(backoffMs(500, 3600)).toBe(3_600_000);
    expect(backoffMs(3, 3)).toBe(3000);
  });
});
