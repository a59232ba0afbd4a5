// Drive a running `kvctl serve` with the official OpenAI Node client: list
// the models, run completions (a string prompt twice, so the second reuses
// the first's KV cache; token ids; streaming with usage, a chunk per
// token), chat completions (whole and streamed) and check that a request
// the engine refuses is an API error, not a truncated stream.
//
//   mkdir -p /tmp/kvctl-openai && (cd /tmp/kvctl-openai && npm init -y && npm install openai)
//   cd /tmp/kvctl-openai && node /path/to/kvctl/bench/openai_client.mjs http://127.0.0.1:8000
//
// The API key is $KVCTL_API_KEY (the server's, if it has one).
//
// The `openai` package is looked up beside this script first, then in the
// current directory. Exits 1 when a check fails.
import { createRequire } from 'node:module';
import path from 'node:path';

function loadOpenAI() {
  for (const base of [import.meta.url, path.join(process.cwd(), 'index.js')]) {
    try {
      const mod = createRequire(base)('openai');
      return mod.OpenAI ?? mod.default ?? mod;
    } catch {}
  }
  throw new Error('cannot find the openai package: npm install openai in the current directory');
}

function check(ok, what) {
  if (!ok) {
    console.error(`FAIL: ${what}`);
    process.exit(1);
  }
}

const OpenAI = loadOpenAI();
const base = (process.argv[2] ?? 'http://127.0.0.1:8000').replace(/\/$/, '');
const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: process.env.KVCTL_API_KEY || 'unused', maxRetries: 0 });

const models = await client.models.list();
const model = models.data[0].id;
console.log(`model: ${model}`);

const prompt = 'The KV cache of a long shared system prompt. '.repeat(8);
for (const run of ['first', 'repeat']) {
  const t0 = performance.now();
  const c = await client.completions.create({ model, prompt, max_tokens: 8 });
  const ms = performance.now() - t0;
  console.log(`${run}: ${JSON.stringify(c.choices[0].text)} usage ${JSON.stringify(c.usage)} in ${ms.toFixed(1)} ms`);
  check(c.choices[0].text.length === 8 && c.usage.completion_tokens === 8, `${run}: 8 completion tokens`);
  if (run === 'repeat') check(c.usage.prompt_tokens_details.cached_tokens > 0, 'repeat: cached tokens');
}

const ids = await client.completions.create({ model, prompt: [1, 2, 3, 4, 5], max_tokens: 4 });
console.log(`token ids: ${JSON.stringify(ids.choices[0].text)} usage ${JSON.stringify(ids.usage)}`);
check(ids.usage.prompt_tokens === 5, 'token ids: 5 prompt tokens');

const t0 = performance.now();
let ttft = 0;
let text = '';
let usage;
let chunks = 0;
const stream = await client.completions.create({ model, prompt, max_tokens: 32, stream: true, stream_options: { include_usage: true } });
for await (const chunk of stream) {
  if (!ttft) ttft = performance.now() - t0;
  for (const ch of chunk.choices) text += ch.text;
  if (chunk.choices.length) chunks++;
  if (chunk.usage) usage = chunk.usage;
}
console.log(`stream: ${JSON.stringify(text)} in ${chunks} chunks, usage ${JSON.stringify(usage)}, first chunk after ${ttft.toFixed(1)} ms`);
check(text.length === 32 && chunks === 32 && usage?.completion_tokens === 32, 'stream: 32 tokens in 32 chunks, and usage');

const messages = [{ role: 'system', content: prompt }, { role: 'user', content: 'hi' }];
const chat = await client.chat.completions.create({ model, messages, max_completion_tokens: 6 });
console.log(`chat: ${JSON.stringify(chat.choices[0].message)} usage ${JSON.stringify(chat.usage)}`);
check(chat.object === 'chat.completion' && chat.choices[0].message.role === 'assistant' &&
  chat.choices[0].message.content.length === 6, 'chat: an assistant message of 6 tokens');
let reply = '';
let role;
usage = undefined;
const chatStream = await client.chat.completions.create({ model, messages, max_tokens: 6, stream: true, stream_options: { include_usage: true } });
for await (const chunk of chatStream) {
  for (const ch of chunk.choices) {
    role ??= ch.delta.role;
    reply += ch.delta.content ?? '';
  }
  if (chunk.usage) usage = chunk.usage;
}
console.log(`chat stream: ${role} ${JSON.stringify(reply)} usage ${JSON.stringify(usage)}`);
check(role === 'assistant' && reply === chat.choices[0].message.content && usage?.prompt_tokens_details.cached_tokens > 0,
  'chat stream: the same reply, cached tokens');

try {
  await client.completions.create({ model, prompt: '', max_tokens: 4, stream: true });
  check(false, 'an empty prompt must fail');
} catch (err) {
  console.log(`empty prompt: HTTP ${err.status}: ${err.error?.message ?? err.message}`);
  check(err.status === 400, 'empty prompt: status 400');
}
console.log('ok');
