import { describe, expect, it } from 'vitest';
import { isPrivateAddress, literalAddress } from './private-address.js';

describe('isPrivateAddress', () => {
  it('refuses loopback, private, link-local (cloud metadata) and unspecified addresses, IPv4-mapped ones too', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
  });

  it('lets public addresses through', () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '172.32.0.1']) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  it('reads the address of a URL whose host is an IP literal, brackets and all', () => {
    expect(literalAddress(new URL('http://[::1]:8080/x'))).toBe('::1');
    expect(literalAddress(new URL('http://127.0.0.1/x'))).toBe('127.0.0.1');
    expect(literalAddress(new URL('http://localhost/x'))).toBeUndefined();
  });
});
