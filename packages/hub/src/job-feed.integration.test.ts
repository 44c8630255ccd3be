import { afterEach, describe, expect, it } from 'vitest';
import { JobFeeds } from './job-feed.js';
import { createHubFixture, type HubFixture } from './test-support/hub-fixture.js';

let fixture: HubFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('the feed writer', () => {
  it('finds the reader of its job, and not the reader of another job of the shard', async () => {
    fixture = createHubFixture();
    const { hub } = fixture;
    // No recheck interval: every question goes to Redis.
    const feeds = new JobFeeds(hub.redis, hub.keys, 0);
    expect(await feeds.writer('j1').watched()).toBe(false);
    await hub.feeds.watch('j1');
    expect(await feeds.writer('j1').watched()).toBe(true);
    expect(await feeds.writer('j2').watched()).toBe(false);
  });

  it('asks nothing per job while no reader watches any feed of the shard', async () => {
    fixture = createHubFixture();
    const { hub } = fixture;
    const feeds = new JobFeeds(hub.redis, hub.keys, 0);
    // A job's watch key alone (no reader of this release set the shard's key) is not looked for.
    await hub.redis.set(hub.keys.feedWatch('j1'), '1', 'EX', 30);
    expect(await feeds.writer('j1').watched()).toBe(false);
    await hub.redis.set(hub.keys.feedWatching(), '1', 'EX', 30);
    expect(await feeds.writer('j1').watched()).toBe(true);
  });

  it('asks whether the shard has readers once per recheck interval for all its writers', async () => {
    fixture = createHubFixture();
    const { hub } = fixture;
    const feeds = new JobFeeds(hub.redis, hub.keys, 60_000);
    expect(await feeds.writer('j1').watched()).toBe(false);
    await hub.feeds.watch('j2');
    // What Redis said less than the interval ago, for every writer of this process.
    expect(await feeds.writer('j2').watched()).toBe(false);
    // A process that asks now finds the reader.
    expect(await new JobFeeds(hub.redis, hub.keys, 60_000).writer('j2').watched()).toBe(true);
  });
});
