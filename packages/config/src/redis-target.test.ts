import { ConfigError } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { parseRedisTarget } from './redis-target.js';

describe('parseRedisTarget', () => {
  it('reads one server as it is', () => {
    expect(parseRedisTarget('redis://:pw@127.0.0.1:6379/3')).toEqual({ mode: 'single', url: 'redis://:pw@127.0.0.1:6379/3' });
    expect(parseRedisTarget('rediss://cache.example.com:6380')).toEqual({
      mode: 'single',
      url: 'rediss://cache.example.com:6380',
    });
  });

  it('reads a cluster from its seed nodes, with credentials and TLS', () => {
    expect(parseRedisTarget('redis-cluster://10.0.0.1:7000,10.0.0.2:7001')).toEqual({
      mode: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      tls: false,
    });
    expect(parseRedisTarget('rediss-cluster://app:s%40cret@a:7000')).toMatchObject({
      mode: 'cluster',
      username: 'app',
      password: 's@cret',
      tls: true,
    });
  });

  it('makes the config file’s redis.cluster list a cluster, keeping the URL’s password', () => {
    expect(parseRedisTarget('redis://:pw@ignored:6379', ['n1:7000', 'n2:7000'])).toEqual({
      mode: 'cluster',
      nodes: [
        { host: 'n1', port: 7000 },
        { host: 'n2', port: 7000 },
      ],
      password: 'pw',
      tls: false,
    });
  });

  it('reads sentinels, the master name and the database', () => {
    expect(parseRedisTarget('redis-sentinel://:pw@s1:26379,s2:26379/mymaster/2')).toEqual({
      mode: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
      ],
      name: 'mymaster',
      password: 'pw',
      db: 2,
      tls: false,
    });
  });

  it.each([
    ['http://x:6379', /REDIS_URL/],
    ['redis-cluster://no-port', /'no-port' is not host:port/],
    ['redis-sentinel://s1:26379', /names the master/],
    ['redis-cluster://a:99999', /is not host:port/],
  ])('refuses %s with a message naming REDIS_URL', (url, message) => {
    expect(() => parseRedisTarget(url)).toThrow(ConfigError);
    expect(() => parseRedisTarget(url)).toThrow(message);
  });

  it('never shows the password of a URL it refuses', () => {
    expect(() => parseRedisTarget('http://user:topsecret@x:6379')).toThrow(/user:\*\*\*@/);
    expect(() => parseRedisTarget('http://user:topsecret@x:6379')).not.toThrow(/topsecret/);
  });
});
