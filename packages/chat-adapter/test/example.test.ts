/**
 * The echo bot of examples/chat-sdk-bot, run as its own process on the built package (as a user runs it), answers a
 * sandbox customer; stopped, it removes its subscriptions.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { startSandbox } from '@chat-messaging/sandbox';

import { chatMessages, control, until } from './support';

const ROOT = join(__dirname, '..', '..', '..');
const TOKEN = 'chat-adapter-example';

it('the echo bot answers a customer, and takes its subscriptions away when stopped', async () => {
	const sandbox = await startSandbox({ tokens: [TOKEN], paceMs: 20, deliveredAfterMs: 0, readAfterMs: 0, seed: 43 });
	const bot = spawn(
		process.execPath,
		[join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'examples', 'chat-sdk-bot', 'echo.mts')],
		{
			cwd: ROOT,
			env: { ...process.env, CHAT_MESSAGING_BASE_URL: sandbox.url, CHAT_MESSAGING_TOKEN: TOKEN },
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	let output = '';
	bot.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
	bot.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
	try {
		await until('the bot to listen', () => /listening on/.test(output) || bot.exitCode !== null, 30_000);
		expect(output).toMatch(/echo bot listening on http:\/\/127\.0\.0\.1:\d+/);
		expect((await control(sandbox.url, TOKEN, '/_sandbox/webhooks')).webhooks).toHaveLength(3);
		const incoming = await control(sandbox.url, TOKEN, '/_sandbox/incoming', {
			phone: '+4915100000431',
			text: 'is this thing on?',
			name: 'Tester',
		});
		await until('the answer', async () => (await chatMessages(sandbox.url, TOKEN, incoming.chat_id)).some((m) => m.from_me), 20_000);
		const answers = (await chatMessages(sandbox.url, TOKEN, incoming.chat_id)).filter((m) => m.from_me).map((m) => m.text);
		expect(answers).toEqual(['You said: is this thing on?']);
		expect(output).toContain('Tester: is this thing on?');
		expect(output).not.toContain(TOKEN);
		bot.kill('SIGTERM');
		await new Promise((resolve) => (bot.exitCode !== null ? resolve(undefined) : bot.once('exit', resolve)));
		expect(bot.exitCode).toBe(0);
		expect((await control(sandbox.url, TOKEN, '/_sandbox/webhooks')).webhooks).toEqual([]);
	} finally {
		if (bot.exitCode === null) bot.kill('SIGKILL');
		await sandbox.stop();
	}
}, 60_000);
