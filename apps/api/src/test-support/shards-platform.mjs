// The model and the platform of redis-shards.integration.test.ts, in a process of their own (its
// `spawnShardsPlatform`): in the test's process, behind its 300 senders, a loaded machine had them
// answer the worker after its 10 s delivery time-out, and the reply was sent again. Sends its
// URLs, then each delivery (in the order received), to the parent over IPC.
import { answerText, lastUserText, sendJson, startLocalServer, startOpenAIUpstream } from '@switchboard/testing';

// The reply shows the prompt and how many messages of memory came with it.
const upstream = await startOpenAIUpstream((req, res) => {
  const history = req.json.messages.filter((m) => m.role !== 'system').length - 1;
  answerText(req, res, `reply to: ${lastUserText(req)} (history: ${history})`);
});
const receiver = await startLocalServer((req, res) => {
  const { id, to, text } = req.json;
  process.send?.({ delivery: { id, to, text } });
  sendJson(res, 200, { ok: true });
});
process.send?.({ upstream: upstream.url, receiver: receiver.url });
// The test ended (or died): nothing to serve any more.
process.on('disconnect', () => process.exit(0));
