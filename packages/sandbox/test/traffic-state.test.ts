import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { call, data, FAST, startSandbox, waitFor, type Sandbox } from './helpers';
import { spawn } from 'child_process';
import { request as httpRequest } from 'http';

describe('rate limit', () => {
	test('beyond burst 10 → 429 rate_limit_exceeded with Retry-After; control API exempt', async () => {
		const sbx = await startSandbox({ ...FAST, rateLimit: 2 });
		try {
			const statuses: number[] = [];
			let limited: Awaited<ReturnType<typeof call>> | undefined;
			for (let i = 0; i < 14; i += 1) {
				const res = await call(sbx, 'GET', '/workspace');
				statuses.push(res.status);
				if (res.status === 429) limited ??= res;
			}
			expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
			expect(statuses.slice(11)).toContain(429);
			expect(limited!.body).toMatchObject({ status: 'error', error_code: 'rate_limit_exceeded' });
			expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
			expect((await call(sbx, 'GET', '/_sandbox/deliveries')).status).toBe(200);
			// The control API counts what the limit refused, and is not counted itself.
			const refused = statuses.filter((status) => status === 429).length;
			expect((await call(sbx, 'GET', '/_sandbox/traffic')).body).toMatchObject({
				status: 'ok',
				data: { api_calls: 14, rate_limited: refused },
			});
		} finally {
			await sbx.stop();
		}
	});

	test('off by default', async () => {
		const sbx = await startSandbox(FAST);
		try {
			const results = await Promise.all(Array.from({ length: 30 }, () => call(sbx, 'GET', '/workspace')));
			expect(results.every((r) => r.status === 200)).toBe(true);
		} finally {
			await sbx.stop();
		}
	});
});

describe('faults', () => {
	test('fault-rate 1: 500, 502, 429+Retry-After, and dropped connections both before and after taking effect', async () => {
		const sbx = await startSandbox({ ...FAST, faultRate: 1, chats: 5 });
		try {
			const seen = new Set<string>();
			let dropped = 0;
			for (let i = 0; i < 40; i += 1) {
				try {
					const res = await call(sbx, 'POST', '/webhooks', {
						event_type: 'chat:created',
						url: `https://h.example.com/${i}`,
						enabled: false,
					});
					if (res.status === 500) expect(res.body.error_code).toBe('internal_error');
					if (res.status === 429) expect(res.headers.get('retry-after')).toBeTruthy();
					if (res.status === 502) expect(res.headers.get('content-type')).toContain('text/html');
					seen.add(String(res.status));
				} catch {
					dropped += 1;
				}
			}
			expect(seen).toEqual(new Set(['500', '502', '429']));
			expect(dropped).toBeGreaterThan(0);
			// Some dropped requests still took effect (drop-after), others did not (drop-before): the
			// webhook count (read via the exempt control API) lies strictly between 0 and the number of drops.
			const created = (await data(sbx, '/_sandbox/webhooks')).webhooks.length;
			expect(created).toBeGreaterThan(0);
			expect(created).toBeLessThan(dropped);
		} finally {
			await sbx.stop();
		}
	});

	test('fault kinds: http-500-after answers 500 after taking effect; slow takes effect at once and answers slow-ms late', async () => {
		const after500 = await startSandbox({ ...FAST, faultRate: 1, faultKinds: ['http-500-after'], chats: 5 });
		const slow = await startSandbox({ ...FAST, faultRate: 1, faultKinds: ['slow'], slowMs: 300, chats: 5 });
		try {
			const res = await call(after500, 'POST', '/webhooks', { event_type: 'chat:created', url: 'https://h.example.com/a', enabled: false });
			expect(res.status).toBe(500);
			expect((await data(after500, '/_sandbox/webhooks')).webhooks).toHaveLength(1);

			const started = Date.now();
			const answered = call(slow, 'POST', '/webhooks', { event_type: 'chat:created', url: 'https://h.example.com/b', enabled: false });
			await new Promise((resolve) => setTimeout(resolve, 100));
			expect((await data(slow, '/_sandbox/webhooks')).webhooks).toHaveLength(1); // stored before the answer
			expect((await answered).status).toBe(200);
			expect(Date.now() - started).toBeGreaterThanOrEqual(290);
		} finally {
			await after500.stop();
			await slow.stop();
		}
	});

	test('unknown fault kinds are refused at start', async () => {
		await expect(startSandbox({ faultKinds: ['gremlins' as never] })).rejects.toThrow(/faultKinds: unknown gremlins/);
	});

	test('latency-ms delays API answers (control API exempt)', async () => {
		const sbx = await startSandbox({ ...FAST, latencyMs: 150 });
		try {
			let started = Date.now();
			await call(sbx, 'GET', '/workspace');
			expect(Date.now() - started).toBeGreaterThanOrEqual(140);
			started = Date.now();
			await call(sbx, 'GET', '/_sandbox/queue');
			expect(Date.now() - started).toBeLessThan(140);
		} finally {
			await sbx.stop();
		}
	});
});

describe('state, reset, determinism', () => {
	test('--state persists everything and reloads it; writes leave no temp file', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'sandbox-state-'));
		const file = join(dir, 'state.json');
		try {
			const first = await startSandbox({ ...FAST, statePath: file, tokens: ['keep'] });
			const sent = await call(first, 'POST', '/messages', { phone: '+4915100000777', text: 'persist me' });
			const hook = await call(first, 'POST', '/webhooks', { event_type: 'chat:created', url: 'https://h.example.com/x', enabled: false });
			await call(first, 'PATCH', `/chats/${sent.body.data.chat_id}`, { name: 'Persisted chat' });
			await first.stop();
			expect(existsSync(file)).toBe(true);
			expect(readdirSync(dir)).toEqual(['state.json']);
			expect(JSON.parse(readFileSync(file, 'utf8')).format).toBe('chat-messaging-sandbox-state');
			const second = await startSandbox({ ...FAST, statePath: file, tokens: ['keep'] });
			try {
				expect((await data(second, `/chats/${sent.body.data.chat_id}`)).name).toBe('Persisted chat');
				expect((await data(second, `/messages/${sent.body.data.message_uid}`)).text).toBe('persist me');
				expect(await data(second, `/webhooks/${hook.body.data.id}`)).toMatchObject({ url: 'https://h.example.com/x' });
				expect((await data(second, '/workspace')).messaging_quota.used).toBe(1);
			} finally {
				await second.stop();
			}
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	test('POST /_sandbox/reset restores the seeded start', async () => {
		const sbx = await startSandbox(FAST);
		try {
			const before = await data(sbx, '/chats');
			const chat = before.chats[0];
			await call(sbx, 'PATCH', `/chats/${chat.id}`, { name: 'Changed', closed: !chat.closed });
			await call(sbx, 'POST', '/messages', { phone: '+4915100000888', text: 'gone after reset' });
			await call(sbx, 'POST', '/webhooks', { event_type: 'chat:created', url: 'https://h.example.com/x', enabled: false });
			expect((await call(sbx, 'POST', '/_sandbox/reset')).status).toBe(200);
			expect(await data(sbx, '/chats')).toEqual(before);
			expect((await data(sbx, '/webhooks')).webhooks).toEqual([]);
			expect((await data(sbx, '/workspace')).messaging_quota.used).toBe(0);
		} finally {
			await sbx.stop();
		}
	});

	test('the same seed generates the same workspace; another seed differs', async () => {
		const [a, b, c] = await Promise.all([
			startSandbox({ ...FAST, seed: 42, chats: 30 }),
			startSandbox({ ...FAST, seed: 42, chats: 30 }),
			startSandbox({ ...FAST, seed: 43, chats: 30 }),
		]);
		try {
			const [ca, cb, cc] = await Promise.all([data(a, '/chats'), data(b, '/chats'), data(c, '/chats')]);
			expect(ca).toEqual(cb);
			expect(ca).not.toEqual(cc);
			expect(await data(a, '/workspace/teammates')).toEqual(await data(b, '/workspace/teammates'));
		} finally {
			await Promise.all([a.stop(), b.stop(), c.stop()]);
		}
	});
});

describe('durability and body limits', () => {
	test('with --state every write answered ok survives a kill -9 (written before the answer)', async () => {
		const root = join(__dirname, '..');
		const dir = mkdtempSync(join(tmpdir(), 'sandbox-durable-'));
		const state = join(dir, 'state.json');
		// One process (node --import tsx), so SIGKILL hits the sandbox itself, with no chance to save on exit.
		const start = () =>
			spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--port', '0', '--token', 'durable', '--chats', '3', '--state', state], {
				cwd: root,
			});
		const urlOf = async (child: ReturnType<typeof start>) => {
			let out = '';
			child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
			return waitFor('/listening on (\\S+)/.exec(out)?.[1]', () => /listening on (\S+)/.exec(out)?.[1], { timeoutMs: 20_000 });
		};
		let child = start();
		try {
			const sbx = { url: await urlOf(child), tokens: ['durable'] } as unknown as Sandbox;
			const chat = (await data(sbx, '/chats')).chats[0];
			const labels = Array.from({ length: 40 }, (_, i) => `durable-${i}`);
			// A burst: all in flight at once, each answered only once it is on disk.
			const answers = await Promise.all(labels.map((label) => call(sbx, 'PUT', `/chats/${chat.id}/labels`, { labels: [label] })));
			expect(answers.every((answer) => answer.status === 200)).toBe(true);
			child.kill('SIGKILL');
			await new Promise((resolve) => child.once('exit', resolve));

			child = start();
			const restarted = { url: await urlOf(child), tokens: ['durable'] } as unknown as Sandbox;
			const kept = (await data(restarted, `/chats/${chat.id}/labels`)).labels as string[];
			expect(labels.filter((label) => !kept.includes(label))).toEqual([]);
		} finally {
			child.kill('SIGKILL');
			rmSync(dir, { recursive: true, force: true });
		}
	});

	test.each([
		['announced by Content-Length', true],
		['streamed without a length', false],
	])('a body over the limit (%s) gets 413 with the error envelope, not a reset', async (_, announced) => {
		const sbx = await startSandbox({ ...FAST, chats: 1, maxBodyBytes: 1024 * 1024 });
		try {
			const target = new URL(`${sbx.url}/files_upload`);
			const size = 3 * 1024 * 1024;
			const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
				const request = httpRequest({
					host: target.hostname,
					port: target.port,
					path: target.pathname,
					method: 'POST',
					headers: {
						authorization: `Bearer ${sbx.tokens[0]}`,
						'content-type': 'multipart/form-data; boundary=x',
						...(announced ? { 'content-length': String(size) } : {}),
					},
				});
				request.on('response', (response) => {
					let body = '';
					response.on('data', (chunk: Buffer) => (body += chunk.toString()));
					response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
				});
				request.on('error', reject);
				const chunk = Buffer.alloc(64 * 1024, 97);
				let sent = 0;
				const pump = () => {
					while (sent < size) {
						sent += chunk.length;
						if (!request.write(chunk)) return void request.once('drain', pump);
					}
					request.end();
				};
				pump();
			});
			expect(answer.status).toBe(413);
			expect(JSON.parse(answer.body)).toEqual({ status: 'error', message: 'Request body too large (more than 1048576 bytes)' });
		} finally {
			await sbx.stop();
		}
	});
});
